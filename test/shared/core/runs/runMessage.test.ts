import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  messageOf,
  parseRunMessage,
  runMessageText,
} from "../../../../shared/core/runs/runMessage.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("run messages, plain or base64 JSON", () => {
  it("reads every run message alike as plain JSON text, its base64, and the host's object", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), (runId, dryRun) => {
        const text = runMessageText({ runId, dryRun });
        const expected = { runId: runId.toLowerCase(), dryRun };
        expect(parseRunMessage(text)).toEqual(expected);
        expect(parseRunMessage(base64(text))).toEqual(expected);
        expect(parseRunMessage(` ${base64(text)}\n`)).toEqual(expected);
        expect(parseRunMessage(JSON.parse(text))).toEqual(expected);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it("never throws anything but a ValidationError naming a field, whatever the text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.json()), (text) => {
        for (const value of [text, base64(text)]) {
          try {
            parseRunMessage(value);
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
          }
        }
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it("refuses base64 whose JSON is not a run message, naming the field", () => {
    expect(() => parseRunMessage(base64(JSON.stringify({ runId: "x", dryRun: false })))).toThrow(
      /runId/,
    );
    expect(() => parseRunMessage(base64("not json"))).toThrow(ValidationError);
    // Unpadded base64 is not what the encoders write; it is refused, not guessed at.
    expect(() =>
      parseRunMessage(
        base64(runMessageText({ runId: crypto.randomUUID(), dryRun: true })).replace(/=+$/, "x"),
      ),
    ).toThrow(ValidationError);
  });
});

describe("run messages carry force", () => {
  it("round-trip force: true; force false is left out, as before; a message without it is not forced", () => {
    const runId = crypto.randomUUID();
    expect(runMessageText({ runId, dryRun: false, force: true })).toBe(
      JSON.stringify({ runId, dryRun: false, force: true }),
    );
    expect(runMessageText({ runId, dryRun: false, force: false })).toBe(
      JSON.stringify({ runId, dryRun: false }),
    );
    expect(parseRunMessage(base64(runMessageText({ runId, dryRun: true, force: true })))).toEqual({
      runId,
      dryRun: true,
      force: true,
    });
    expect(parseRunMessage({ runId, dryRun: false })).not.toHaveProperty("force");
  });

  it("refuses a force that is not a boolean, naming it", () => {
    expect(() =>
      parseRunMessage({ runId: crypto.randomUUID(), dryRun: false, force: "true" }),
    ).toThrow(/force.*must be true or false/);
  });

  it("the message of a forced run says so (messageOf)", () => {
    const run = {
      runId: crypto.randomUUID(),
      state: "queued" as const,
      dryRun: false,
      force: true,
      requestedAt: new Date(),
      requestedBy: "function-key",
      attempts: 0,
    };
    expect(messageOf(run)).toEqual({ runId: run.runId, dryRun: false, force: true });
    expect(messageOf({ ...run, force: undefined })).toEqual({ runId: run.runId, dryRun: false });
  });
});
