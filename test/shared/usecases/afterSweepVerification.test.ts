import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadVerifySettings } from "../../../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../../../shared/app/services.js";
import {
  type InventoryRecord,
  memoryInventory,
  type VerificationRecord,
} from "../../../shared/core/ports/inventory.js";
import {
  type Ledger,
  type LedgerOutcome,
  memoryLedger,
  noLedger,
} from "../../../shared/core/ports/ledger.js";
import type { Env } from "../../../shared/core/settings.js";
import type { InventoryVerification } from "../../../shared/core/verification/inventoryResult.js";
import { CertschedError } from "../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import {
  type AfterSweepPorts,
  renewedToVerify,
  verifyAfterSweep,
} from "../../../shared/usecases/afterSweepVerification.js";
import { sweep } from "../../../shared/usecases/sweep/sweep.js";
import type { Simulator } from "../../../sim/index.js";
import { startSimulator } from "../../../sim/index.js";
import { collectingLogger, runtimeFor } from "../../support/app.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const WINDOW = 2 * HOUR_MS;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function record(
  id: number | undefined,
  name: string,
  lastVerification?: Partial<VerificationRecord> & Pick<VerificationRecord, "status" | "at">,
): InventoryRecord {
  return {
    certificateName: name,
    ...(id === undefined ? {} : { id }),
    source: "renewed",
    firstSeen: ago(30 * DAY_MS),
    lastSeen: NOW,
    ...(lastVerification
      ? {
          lastVerification: {
            source: "tls",
            domain: `${name}.contoso.com`,
            detail: "",
            ...lastVerification,
          },
        }
      : {}),
  };
}

async function accepted(
  ledger: Ledger,
  id: number,
  name: string,
  at: Date,
  outcome: LedgerOutcome = "renewal-scheduled",
): Promise<void> {
  await ledger.write(
    {
      id,
      certificateName: name,
      expiryAtRequest: new Date(NOW.getTime() + 5 * DAY_MS),
      firstRequestedAt: at,
      lastRequestedAt: at,
      outcome,
      attempts: 1,
      detail: undefined,
    },
    undefined,
  );
}

describe("renewedToVerify: the earlier renewals due to have landed", () => {
  it("takes an accepted renewal from exactly the window on, not a millisecond before", async () => {
    const ledger = memoryLedger();
    await accepted(ledger, 1, "at-window", ago(WINDOW));
    await accepted(ledger, 2, "just-inside", ago(WINDOW - 1));
    await accepted(ledger, 3, "long-ago", ago(3 * DAY_MS));
    const names = await renewedToVerify(
      [record(1, "at-window"), record(2, "just-inside"), record(3, "long-ago")],
      ledger,
      { now: NOW, windowMs: WINDOW, log: collectingLogger().log },
    );
    expect(names).toEqual(["at-window", "long-ago"]);
  });

  it.each<[LedgerOutcome, boolean]>([
    ["renewal-scheduled", true],
    ["stuck", true],
    ["failed", false],
    ["answer-unknown", false],
    ["claimed", false],
    ["sent", false],
  ])("a ledger row %s: verified %s", async (outcome, expected) => {
    const ledger = memoryLedger();
    await accepted(ledger, 1, "www", ago(3 * HOUR_MS), outcome);
    const names = await renewedToVerify([record(1, "www")], ledger, {
      now: NOW,
      windowMs: WINDOW,
      log: collectingLogger().log,
    });
    expect(names).toEqual(expected ? ["www"] : []);
  });

  it("until a verification found it ok after the acceptance", async () => {
    const ledger = memoryLedger();
    const acceptedAt = ago(3 * HOUR_MS);
    for (const id of [1, 2, 3, 4]) await accepted(ledger, id, `c${id}`, acceptedAt);
    const names = await renewedToVerify(
      [
        // ok at the very moment of acceptance counts as after it
        record(1, "c1", { status: "ok", at: acceptedAt }),
        record(2, "c2", { status: "ok", at: new Date(acceptedAt.getTime() - 1) }),
        record(3, "c3", { status: "not-landed", at: ago(HOUR_MS) }),
        record(4, "c4"),
      ],
      ledger,
      { now: NOW, windowMs: WINDOW, log: collectingLogger().log },
    );
    expect(names).toEqual(["c2", "c3", "c4"]);
  });

  it("leaves out records with no id, no ledger row, or no ledger at all", async () => {
    const ledger = memoryLedger();
    await accepted(ledger, 1, "www", ago(3 * HOUR_MS));
    const options = { now: NOW, windowMs: WINDOW, log: collectingLogger().log };
    expect(
      await renewedToVerify([record(undefined, "www"), record(9, "x")], ledger, options),
    ).toEqual([]);
    expect(await renewedToVerify([record(1, "www")], noLedger, options)).toEqual([]);
  });

  it("a ledger that fails for one certificate leaves that one to the timer, and says so", async () => {
    const inner = memoryLedger();
    await accepted(inner, 1, "good", ago(3 * HOUR_MS));
    await accepted(inner, 2, "bad", ago(3 * HOUR_MS));
    const flaky: Ledger = {
      ...inner,
      read: async (id) => {
        if (id === 2) throw new CertschedError("LEDGER_UNAVAILABLE", "table storage said 503");
        return inner.read(id);
      },
    };
    const { log, lines } = collectingLogger();
    const names = await renewedToVerify([record(1, "good"), record(2, "bad")], flaky, {
      now: NOW,
      windowMs: WINDOW,
      log,
    });
    expect(names).toEqual(["good"]);
    expect(lines).toContainEqual({
      level: "warn",
      message:
        "certsched could not read the ledger for 1 certificate(s) after the sweep; the verification timer checks them",
    });
  });
});

function emptyRun(): InventoryVerification {
  return { at: NOW, results: [], counts: { ok: 1 }, failed: false, problems: [], changes: [] };
}

describe("verifyAfterSweep", () => {
  async function seeded(env: Env = {}) {
    const ledger = memoryLedger();
    const inventory = memoryInventory();
    await inventory.upsert([{ certificateName: "www", id: 1, source: "renewed", seenAt: NOW }]);
    await accepted(ledger, 1, "www", ago(3 * HOUR_MS));
    const runtime: AfterSweepPorts = {
      settings: { verify: () => loadVerifySettings(env) },
      ledger,
      inventory,
      now: () => NOW,
    };
    return runtime;
  }

  it("verifies the names and carries what it found", async () => {
    const asked: (readonly string[])[] = [];
    const outcome = await verifyAfterSweep(await seeded({}), collectingLogger().log, {
      trigger: "timer",
      deadline: new AbortController().signal,
      verify: async (names) => {
        asked.push(names);
        return { ...emptyRun(), failed: true, problems: ["www (www.contoso.com): not-landed"] };
      },
    });
    expect(asked).toEqual([["www"]]);
    expect(outcome).toEqual({
      names: ["www"],
      failed: true,
      counts: { ok: 1 },
      problems: ["www (www.contoso.com): not-landed"],
    });
  });

  it("starts nothing once the sweep's deadline has passed", async () => {
    const { log, lines } = collectingLogger();
    let called = false;
    const outcome = await verifyAfterSweep(await seeded({}), log, {
      trigger: "timer",
      deadline: AbortSignal.abort(),
      verify: async () => {
        called = true;
        return emptyRun();
      },
    });
    expect(outcome).toBeUndefined();
    expect(called).toBe(false);
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringContaining("the sweep's deadline has passed"),
    );
  });

  it("never throws: a failed verification or a bad setting is a warning", async () => {
    for (const [env, verify] of [
      [
        {},
        async () => {
          throw new CertschedError("INVENTORY_UNAVAILABLE", "inventory table said 503");
        },
      ],
      [{ CERTSCHED_VERIFY_WINDOW: "soon" }, async () => emptyRun()],
    ] as const) {
      const { log, lines } = collectingLogger();
      const outcome = await verifyAfterSweep(await seeded(env), log, {
        trigger: "timer",
        deadline: new AbortController().signal,
        verify,
      });
      expect(outcome).toBeUndefined();
      expect(lines).toHaveLength(1);
      expect(lines[0]?.message).toMatch(
        /^certsched could not verify earlier renewals after the sweep \(the sweep is unaffected\): /,
      );
    }
  });
});

describe("after a sweep through sweep", () => {
  let sim: Simulator;
  let runtime: AccountPorts | undefined;
  beforeEach(async () => {
    sim = await startSimulator({
      completionDelayMs: 30 * 60_000,
      certificates: [
        {
          certificateName: "www-contoso-com",
          expiryDate: new Date(Date.now() + 5.5 * DAY_MS),
        },
      ],
    });
  });
  afterEach(async () => {
    await runtime?.close();
    await sim.close();
  });

  it("verifies an earlier renewal past the window, logs its own summary line, and leaves the sweep's outcome alone", async () => {
    const ledger = memoryLedger();
    const inventory = memoryInventory();
    const old = { certificateName: "old-contoso-com", id: 4242 };
    await inventory.upsert([{ ...old, source: "renewed", seenAt: new Date() }]);
    await ledger.write(
      {
        ...old,
        expiryAtRequest: new Date(Date.now() + 10 * DAY_MS),
        firstRequestedAt: new Date(Date.now() - 3 * HOUR_MS),
        lastRequestedAt: new Date(Date.now() - 3 * HOUR_MS),
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: undefined,
      },
      undefined,
    );
    runtime = runtimeFor(sim, {}, { ledger, inventory });
    const { log, lines } = collectingLogger();
    const summary = await sweep(runtime, log);
    expect(summary.failed).toBe(false);
    expect(summary.counts["renewal-scheduled"]).toBe(1);
    // This sweep's own renewal is too fresh; the earlier one is past the window.
    expect(summary.verification?.names).toEqual(["old-contoso-com"]);
    const line = lines.find((l) => l.message.startsWith("certsched verification summary "));
    expect(line).toBeDefined();
    expect(
      JSON.parse(line?.message.slice("certsched verification summary ".length) ?? ""),
    ).toMatchObject({
      trigger: "timer",
      scope: "after-sweep",
    });
  });

  it("does nothing in a dry run", async () => {
    const ledger = memoryLedger();
    const inventory = memoryInventory();
    runtime = runtimeFor(sim, { CERTSCHED_DRY_RUN: "true" }, { ledger, inventory });
    const { log, lines } = collectingLogger();
    const summary = await sweep(runtime, log);
    expect(summary.verification).toBeUndefined();
    expect(lines.some((l) => l.message.startsWith("certsched verification summary "))).toBe(false);
  });
});
