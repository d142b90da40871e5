import { describe, expect, it } from "vitest";
import {
  MAX_EXPLANATION_URL,
  MAX_RENEWAL_INFO_BYTES,
  parseRenewalInfo,
} from "../../../../shared/core/ari/renewalInfo.js";

/** The renewalInfo body (RFC 9773 4.2) is untrusted input: each rule with its boundary. */

const body = (value: unknown) => JSON.stringify(value);
const windowOf = (start: string, end: string) => ({ suggestedWindow: { start, end } });

describe("parseRenewalInfo", () => {
  it("reads the RFC's shape, with and without an explanation URL", () => {
    expect(
      parseRenewalInfo(
        body({
          ...windowOf("2025-01-02T04:00:00Z", "2025-01-03T04:00:00Z"),
          explanationURL: "https://acme.example.com/docs/ari",
        }),
      ),
    ).toEqual({
      start: new Date("2025-01-02T04:00:00Z"),
      end: new Date("2025-01-03T04:00:00Z"),
      explanationUrl: "https://acme.example.com/docs/ari",
    });
    expect(
      parseRenewalInfo(body(windowOf("2025-01-02T04:00:00.123+02:00", "2025-01-03T04:00:00Z"))),
    ).toEqual({
      start: new Date("2025-01-02T02:00:00.123Z"),
      end: new Date("2025-01-03T04:00:00Z"),
      explanationUrl: undefined,
    });
  });

  it("ignores fields it does not know (the RFC lets CAs add them)", () => {
    const parsed = parseRenewalInfo(
      body({ ...windowOf("2025-01-02T04:00:00Z", "2025-01-03T04:00:00Z"), extra: [1, 2] }),
    );
    expect(parsed).toHaveProperty("start");
  });

  it.each([
    ["not json", "{", "the answer is not JSON"],
    ["no window", body({}), "suggestedWindow:"],
    [
      "a number for a date",
      body(windowOf(1 as unknown as string, "2025-01-03T04:00:00Z")),
      "suggestedWindow.start:",
    ],
    ["a loose date", body(windowOf("Jan 2 2025", "2025-01-03T04:00:00Z")), "RFC 3339"],
    [
      "an impossible date",
      body(windowOf("2025-02-30T99:00:00Z", "2025-01-03T04:00:00Z")),
      "valid date",
    ],
    [
      "end before start",
      body(windowOf("2025-01-03T04:00:00Z", "2025-01-02T04:00:00Z")),
      "not after",
    ],
    [
      "end equal to start",
      body(windowOf("2025-01-03T04:00:00Z", "2025-01-03T04:00:00Z")),
      "not after",
    ],
    [
      "a javascript: explanation",
      body({
        ...windowOf("2025-01-02T04:00:00Z", "2025-01-03T04:00:00Z"),
        explanationURL: "javascript:alert(1)",
      }),
      "explanationURL: must be an http(s) URL",
    ],
  ])("refuses %s", (_, text, problem) => {
    const parsed = parseRenewalInfo(text);
    expect(parsed).toHaveProperty("problem");
    expect((parsed as { problem: string }).problem).toContain(problem);
  });

  it("end one millisecond after start is a window", () => {
    expect(
      parseRenewalInfo(body(windowOf("2025-01-03T04:00:00.000Z", "2025-01-03T04:00:00.001Z"))),
    ).toHaveProperty("start");
  });

  it("an explanation URL of exactly the limit is kept; one character more is refused", () => {
    const base = "https://ca.example/";
    const url = (n: number) => base + "a".repeat(n - base.length);
    const w = windowOf("2025-01-02T04:00:00Z", "2025-01-03T04:00:00Z");
    expect(
      parseRenewalInfo(body({ ...w, explanationURL: url(MAX_EXPLANATION_URL) })),
    ).toHaveProperty("explanationUrl", url(MAX_EXPLANATION_URL));
    expect(
      parseRenewalInfo(body({ ...w, explanationURL: url(MAX_EXPLANATION_URL + 1) })),
    ).toHaveProperty("problem");
  });

  it("a body over the size bound is refused before parsing", () => {
    const w = body(windowOf("2025-01-02T04:00:00Z", "2025-01-03T04:00:00Z"));
    const exact = w + " ".repeat(MAX_RENEWAL_INFO_BYTES - w.length);
    expect(parseRenewalInfo(exact)).toHaveProperty("start");
    expect(parseRenewalInfo(`${exact} `)).toEqual({
      problem: `the answer is larger than ${MAX_RENEWAL_INFO_BYTES} bytes`,
    });
  });
});
