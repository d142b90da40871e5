import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventGridEvent } from "../../../support/vaultEvents.js";
import { type EventsWorld, startEventsWorld } from "./eventsWorld.js";

/**
 * Events are input from outside: each bad one is skipped with one bounded, escaped line, is never
 * acted on without the vault confirming it (no history, no webhook, no recheck), and the good
 * events of the same delivery are still handled.
 */

let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld();
}, 60_000);
afterAll(async () => {
  expect(w.app.leaks(w.receiver.received.map((r) => r.body))).toEqual([]);
  await w.close();
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function expectBounded(lines: readonly string[]): void {
  for (const line of lines) {
    expect(line.length).toBeLessThanOrEqual(1000);
    expect(line).not.toMatch(CONTROL);
  }
}

describe("bad events in one delivery", () => {
  it("forged, missing, older, unknown, incomplete, oversized and control-character events are skipped; the good one is handled", async () => {
    const [older, current] = w.versions("kv-www") as [string, string];
    const good = w.event({ certificateName: "kv-www", version: current, id: "good" });
    const delivery = [
      eventGridEvent({
        vaultName: "kv-forged",
        certificateName: "kv-www",
        version: current,
        id: "forged-vault",
      }),
      w.event({
        certificateName: "kv-www",
        version: current,
        id: "forged-sub",
        subscriptionId: "99999999-1111-2222-3333-444444444444",
      }),
      w.event({
        certificateName: "kv-www",
        version: "0123456789abcdef0123456789abcdef",
        id: "no-version",
      }),
      w.event({ certificateName: "kv-www", version: older, id: "older" }),
      {
        ...w.event({ certificateName: "kv-www", version: current, id: "secret" }),
        eventType: "Microsoft.KeyVault.SecretNewVersionCreated",
      },
      w.event({
        certificateName: "kv-www",
        version: current,
        id: "missing",
        data: { Version: undefined },
      }),
      w.event({
        certificateName: "kv-www",
        version: current,
        id: "control",
        data: { ObjectName: "kv-www\u001b[31m\r\nforged line" },
      }),
      w.event({
        certificateName: "kv-www",
        version: current,
        id: "huge",
        data: { Pad: "x".repeat(1024 * 1024) },
      }),
      good,
    ];
    const { run, lines } = await w.deliver(delivery);
    expect(run.received).toBe(9);
    expect(run.failed).toEqual([]);
    expect(run.outcomes.map((o) => [o.id, o.outcome])).toEqual([
      ["forged-vault", "not-watched"],
      ["forged-sub", "not-watched"],
      ["no-version", "no-such-version"],
      ["older", "older-version"],
      ["secret", "unknown-type"],
      ["missing", "malformed"],
      ["control", "malformed"],
      ["huge", "malformed"],
      ["good", "done"],
    ]);
    expectBounded(lines.map((l) => l.message));
    expect(lines.filter((l) => l.message.includes("skipped"))).toHaveLength(8);
    // The forged vault was never asked anything.
    expect(w.hosting.vault.requests.filter((r) => r.host.startsWith("kv-forged"))).toEqual([]);
    expect((await w.vaultHistory()).map((e) => e.certificateName)).toEqual(["kv-www"]);
    expect(w.receiver.received).toEqual([]);
    expect(w.sent).toEqual([]);
  });

  it("a delivery that is not JSON is one skipped line", async () => {
    const { run, lines } = await w.deliver("{ not json \u0007");
    expect(run.outcomes).toEqual([expect.objectContaining({ outcome: "malformed" })]);
    expect(run.failed).toEqual([]);
    expect(lines).toHaveLength(1);
    expectBounded(lines.map((l) => l.message));
  });

  it("10,000 events in one batch: 100 lines and a count of the rest; the rest beyond 10,000 counted, not read; the good one handled", async () => {
    const current = w.versions("kv-www").at(-1) as string;
    const forged = Array.from({ length: 9_999 }, (_, i) =>
      eventGridEvent({
        vaultName: "kv-forged",
        certificateName: `cert-${i}`,
        version: current,
        id: `forged-${i}`,
      }),
    );
    const good = w.event({
      kind: "near-expiry",
      certificateName: "kv-www",
      version: current,
      id: "good-expiry",
    });
    const beyond = Array.from({ length: 5 }, (_, i) =>
      w.event({ kind: "expired", certificateName: "kv-www", version: current, id: `beyond-${i}` }),
    );
    const { run, lines } = await w.deliver([...forged, good, ...beyond]);
    expect(run.received).toBe(10_005);
    expect(run.outcomes).toHaveLength(10_000);
    expect(run.outcomes.at(-1)).toMatchObject({ id: "good-expiry", outcome: "in-hand" });
    const skippedLines = lines.filter((l) => l.message.startsWith("certsched vault event forged-"));
    expect(skippedLines).toHaveLength(100);
    expect(lines.map((l) => l.message)).toContain(
      "certsched vault events: 9,899 more skipped without a line of their own (not-watched 9,899)",
    );
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/^certsched vault events: 5 more in this delivery were not read/),
    );
    expectBounded(lines.map((l) => l.message));
    expect(w.receiver.received).toEqual([]);
    expect(w.hosting.vault.requests.filter((r) => r.host.startsWith("kv-forged"))).toEqual([]);
  }, 60_000);
});

describe("an event of a vault certsched does not reach", () => {
  it("a watched vault that cannot be read fails the event (a redelivery may do), the others of the delivery still handled", async () => {
    const { run, lines } = await w.deliver([
      w.event({ vaultName: "kv-gone", certificateName: "www-gone", id: "unreadable" }),
      w.event({
        kind: "expired",
        certificateName: "kv-www",
        version: "0123456789abcdef0123456789abcdef",
        id: "other",
      }),
    ]);
    expect(lines).toContainEqual({
      level: "warn",
      message: expect.stringMatching(
        /^certsched vault event unreadable \(new-version kv-gone\/www-gone version \w+\): failed: the vault could not be read: /,
      ),
    });
    expect(run.outcomes.map((o) => [o.id, o.outcome])).toEqual([
      ["unreadable", "failed"],
      ["other", "no-such-version"],
    ]);
    expect(run.failed).toEqual(["unreadable"]);
  });
});
