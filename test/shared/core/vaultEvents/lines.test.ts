import { describe, expect, it } from "vitest";
import {
  alertLine,
  eventLine,
  MAX_LINE,
  MAX_SKIP_LINES,
  skippedSummary,
} from "../../../../shared/core/vaultEvents/lines.js";
import type { SkipReason } from "../../../../shared/core/vaultEvents/vaultEvent.js";
import { SAMPLE_VERSION, sampleEvent } from "../../../support/vaultEvents.js";

/** The log lines of Key Vault events (lines.ts): their shapes, escaped and bounded whole. */

const event = sampleEvent({ id: "evt-1" });

describe("eventLine", () => {
  it("names the event, its kind, vault, certificate and version, then the outcome and detail", () => {
    expect(eventLine(event, event.id, "confirmed", "consumers serve it")).toBe(
      `certsched vault event evt-1 (new-version kv-contoso/www-contoso-example version ${SAMPLE_VERSION}): confirmed: consumers serve it`,
    );
  });

  it("without an event: no parenthesis, and ? without an id", () => {
    expect(eventLine(undefined, "evt-2", "malformed", "data: must be a JSON object")).toBe(
      "certsched vault event evt-2: malformed: data: must be a JSON object",
    );
    expect(eventLine(undefined, undefined, "malformed", "the delivery is not JSON")).toBe(
      "certsched vault event ?: malformed: the delivery is not JSON",
    );
  });

  it("escapes what could forge a line, and stays within MAX_LINE", () => {
    const line = eventLine(
      undefined,
      "a\nb",
      "malformed",
      `x\r\ncertsched sweep summary ${"y".repeat(5_000)}`,
    );
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toContain("a\\u{0a}b");
    expect(line.length).toBe(MAX_LINE);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("alertLine", () => {
  it("is what the infra's alert rule matches, naming the account", () => {
    const expired = sampleEvent({ kind: "expired" });
    expect(alertLine("contoso", expired, "expired at 2027-02-28T10:00:00Z")).toBe(
      `certsched vault alert: expired kv-contoso/www-contoso-example version ${SAMPLE_VERSION} of account "contoso": expired at 2027-02-28T10:00:00Z`,
    );
    const long = alertLine("a\u202eb", expired, "z".repeat(3_000));
    expect(long.startsWith("certsched vault alert: ")).toBe(true);
    expect(long).toContain('account "a\\u{202e}b"');
    expect(long.length).toBe(MAX_LINE);
  });
});

describe("skippedSummary", () => {
  it("counts the rest by reason, with thousands separated", () => {
    const counts = new Map<SkipReason, number>([
      ["not-watched", 900],
      ["malformed", 9_000],
      ["duplicate", 0],
    ]);
    expect(skippedSummary(counts)).toBe(
      "certsched vault events: 9,900 more skipped without a line of their own (malformed 9,000, not-watched 900)",
    );
    expect(skippedSummary(new Map([["unknown-type", 1_234_567]]))).toBe(
      "certsched vault events: 1,234,567 more skipped without a line of their own (unknown-type 1,234,567)",
    );
    expect(MAX_SKIP_LINES).toBe(100);
  });
});
