import { describe, expect, it } from "vitest";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { memoryHistory } from "../../../../shared/core/ports/history.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { KeyVaultRead } from "../../../../shared/core/ports/probes.js";
import type { ClaimResult, VaultEventStore } from "../../../../shared/core/ports/vaultEvents.js";
import type { VaultEvent } from "../../../../shared/core/vaultEvents/vaultEvent.js";
import { handleForAccount } from "../../../../shared/usecases/vaultEvents/handleForAccount.js";
import { handleVaultEvents } from "../../../../shared/usecases/vaultEvents/handleVaultEvents.js";
import { collectingLogger } from "../../../support/app.js";
import { eventGridEvent } from "../../../support/vaultEvents.js";

/**
 * One event in one account: the claim makes its work happen once (a claim held or done is a
 * duplicate, nothing done), and work that cannot be completed gives its claim back, failed.
 */

const NOW = new Date("2026-03-01T12:00:00Z");

const event: VaultEvent = {
  id: "e1",
  kind: "near-expiry",
  schema: "eventgrid",
  vaultName: "kv-a",
  certificateName: "stray",
  version: "v1",
  subscriptionId: "00000000-1111-2222-3333-444444444444",
  resourceGroup: "rg",
};

const v1 = {
  reached: true,
  version: "v1",
  createdOn: new Date("2026-01-01T00:00:00Z"),
  certificate: {
    thumbprint: "T1",
    notBefore: new Date("2026-01-01T00:00:00Z"),
    notAfter: new Date("2026-03-10T00:00:00Z"),
  },
} as unknown as KeyVaultRead;

function world(claim: ClaimResult, completeFails = false, claimFailsForA = false) {
  const calls: string[] = [];
  const store: VaultEventStore = {
    kind: "memory",
    claim: async (account) => {
      calls.push("claim");
      if (account === "a" && claimFailsForA) throw new Error("table unavailable for a");
      return claim;
    },
    complete: async () => {
      calls.push("complete");
      if (completeFails) throw new Error("table unavailable");
    },
    release: async () => {
      calls.push("release");
    },
    list: async () => ({ items: [], invalid: [] }),
  };
  const history = memoryHistory();
  const alerts: unknown[] = [];
  const ports = {
    now: () => NOW,
    probes: { keyVault: async () => v1, tls: async () => ({}) },
    settings: {
      verify: () => ({ timeoutMs: 5000, connectTo: [], windowMs: 7_200_000 }),
      accountsDeclared: true,
      watchVaults: [],
    },
    inventory: {
      list: async () => ({
        items: [
          {
            certificateName: "www",
            target: KEY_VAULT,
            keyVaultName: "kv-a",
            source: "created",
            firstSeen: NOW,
            lastSeen: NOW,
          },
        ],
        invalid: [],
      }),
    },
    ledger: memoryLedger(),
    history,
    notifier: {
      notifyVaultAlerts: async (a: readonly unknown[]) => {
        alerts.push(...a);
        return "sent";
      },
    },
  };
  const services = {
    accounts: ["a", "b"],
    app: { vaultEvents: store },
    forAccount: () => ports,
  } as never;
  const { log, lines } = collectingLogger();
  const run = () =>
    handleForAccount({ services, log, options: {}, runId: "r1" }, event, {
      account: "b",
      vault: { vaultName: "kv-a", subscriptionIds: new Set(), certificates: new Map() },
      several: true,
    });
  const deliver = () =>
    handleVaultEvents(
      services,
      eventGridEvent({
        kind: "near-expiry",
        vaultName: "kv-a",
        certificateName: "stray",
        version: "v1",
        id: "e9",
      }),
      log,
    );
  return { run, deliver, calls, lines, history, alerts };
}

describe("handleForAccount", () => {
  it("a claim another delivery holds, or one done already, is a duplicate: nothing done", async () => {
    for (const [claim, detail] of [
      ["held", "another delivery is handling it"],
      ["done", "handled already"],
    ] as const) {
      const w = world(claim);
      const outcome = await w.run();
      expect(outcome).toMatchObject({ id: "e1", outcome: "duplicate", skipped: "duplicate" });
      expect(outcome.line).toContain(`skipped duplicate: account "b": ${detail}`);
      expect(w.calls).toEqual(["claim"]);
      expect(w.alerts).toEqual([]);
      expect((await w.history.events({ since: new Date(0) })).items).toEqual([]);
    }
  });

  it("claimed: acted on, completed, one line naming the account", async () => {
    const w = world("claimed");
    const outcome = await w.run();
    expect(outcome.outcome).toBe("unmanaged");
    expect(w.calls).toEqual(["claim", "complete"]);
    expect(w.alerts).toEqual([
      expect.objectContaining({ account: "b", kind: "unmanaged", vaultName: "kv-a" }),
    ]);
    expect(w.lines.map((l) => l.level)).toEqual(["error", "info"]);
    expect(w.lines[1]?.message).toMatch(
      /^certsched vault event e1 \(near-expiry kv-a\/stray version v1\): unmanaged: account "b": /,
    );
  });

  it("work that cannot be completed gives its claim back and fails (a redelivery does it)", async () => {
    const w = world("claimed", true);
    const outcome = await w.run();
    expect(outcome).toMatchObject({ id: "e1", outcome: "failed" });
    expect(outcome.line).toContain('failed: account "b": table unavailable');
    expect(w.calls).toEqual(["claim", "complete", "release"]);
  });

  it("one account's claim that cannot be stored fails the event there; the other account still does it", async () => {
    const w = world("claimed", false, true);
    const run = await w.deliver();
    expect(run.outcomes.map((o) => o.outcome)).toEqual(["failed", "unmanaged"]);
    expect(run.outcomes[0]?.line).toContain("table unavailable for a");
    expect(run.failed).toEqual(["e9"]);
    expect(w.alerts).toHaveLength(1);
  });
});
