import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type History, memoryHistory } from "../../../shared/core/ports/history.js";
import { ValidationError } from "../../../shared/lib/errors.js";
import { escapeControl } from "../../../shared/lib/text/escapeControl.js";
import {
  acknowledgeIssuance,
  acknowledgeProblems,
  MAX_REASON,
} from "../../../shared/usecases/acknowledgeIssuance.js";
import { propertyRuns } from "../../support/fastCheck.js";
import { expectedByKey, hoursAfter, pendingFor, seen, storeWith } from "../../support/issuances.js";

const NOW = hoursAfter(10);

async function world(history: History = memoryHistory()) {
  const transparency = await storeWith([
    seen({ id: "open", hours: 5 }),
    seen({ id: "fine", verdict: expectedByKey() }),
    seen({ id: "wait", verdict: pendingFor() }),
    seen({ id: "done", acknowledged: { at: hoursAfter(4), by: "cli", reason: "first" } }),
    seen({ account: "other", id: "theirs" }),
  ]);
  return { account: "default", transparency, history, now: () => NOW };
}

const request = (id: string, reason = "a test of our own") =>
  ({ id, reason, by: "cli", trigger: "cli" }) as const;

const eventsOf = async (history: History) => (await history.events({ since: new Date(0) })).items;

describe("acknowledgeIssuance", () => {
  it("keeps the acknowledgement and records one event with who, why and the issuance", async () => {
    const ports = await world();
    const done = await acknowledgeIssuance(ports, request("open"));

    expect(done).toMatchObject({
      status: "acknowledged",
      seen: { acknowledged: { at: NOW, by: "cli", reason: "a test of our own" } },
    });
    expect("historyProblem" in done).toBe(false);
    expect(await eventsOf(ports.history)).toEqual([
      {
        at: NOW,
        certificateName: "ct:contoso.example",
        event: "issuance-acknowledged",
        trigger: "cli",
        runId: expect.any(String),
        by: "cli",
        detail: expect.stringMatching(/^a test of our own; issuance open for "contoso\.example"/),
      },
    ]);
  });

  it("answers each other case without keeping or recording anything", async () => {
    const ports = await world();

    expect(await acknowledgeIssuance(ports, request("fine"))).toMatchObject({
      status: "not-unexpected",
      state: "expected",
    });
    expect(await acknowledgeIssuance(ports, request("wait"))).toMatchObject({
      status: "not-unexpected",
      state: "pending",
    });
    expect(await acknowledgeIssuance(ports, request("theirs"))).toEqual({ status: "not-found" });
    expect(await acknowledgeIssuance(ports, request("done", "second"))).toMatchObject({
      status: "already-acknowledged",
      seen: { acknowledged: { reason: "first" } },
    });
    expect(await eventsOf(ports.history)).toEqual([]);
    expect((await ports.transparency.get("default", "fine"))?.acknowledged).toBeUndefined();
  });

  it("refuses a bad id or reason before reading anything, naming each", async () => {
    const ports = await world();
    const refused = acknowledgeIssuance(ports, request("no such/id", "\u001b[2J"));

    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toMatchObject({
      issues: [{ name: "id" }, { name: "reason" }],
    });
    // The message never quotes the reason.
    await expect(refused).rejects.not.toThrow("[2J");
  });

  it("a history that fails: the acknowledgement stays, the failure is returned in words", async () => {
    const history: History = {
      ...memoryHistory(),
      append: async () => {
        throw new Error("the table answered 503");
      },
    };
    const ports = await world(history);
    const done = await acknowledgeIssuance(ports, request("open"));

    expect(done).toMatchObject({
      status: "acknowledged",
      historyProblem: "the table answered 503",
    });
    expect((await ports.transparency.get("default", "open"))?.acknowledged?.by).toBe("cli");
  });

  it("takes a reason exactly when it is 1..500 characters that show as written", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 520 }), (reason) => {
        const fine =
          reason.trim().length > 0 &&
          [...reason].length <= MAX_REASON &&
          escapeControl(reason) === reason;
        const problems = acknowledgeProblems("open", reason);
        expect(problems.length === 0).toBe(fine);
        for (const p of problems) {
          expect(p.name).toBe("reason");
          // Never echoed: a rule, not the text.
          if (reason.length > 3) expect(p.message).not.toContain(reason);
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("takes an id exactly when it is 1..40 of [0-9A-Za-z_-]", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 45 }), (id) => {
        const fine = /^[0-9A-Za-z_-]{1,40}$/.test(id);
        expect(acknowledgeProblems(id, "ok").length === 0).toBe(fine);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
