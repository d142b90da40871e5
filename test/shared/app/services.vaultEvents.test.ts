import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, inject, it } from "vitest";
import { memoryVaultEventStore } from "../../../shared/adapters/storage/memory/memoryVaultEvents.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { createServices, type Services } from "../../../shared/app/services.js";
import type { RecheckMessage, RecheckQueue } from "../../../shared/core/ports/vaultEvents.js";
import type { Env } from "../../../shared/core/settings.js";
import { eventKey } from "../../../shared/core/vaultEvents/vaultEvent.js";
import { silentLogger } from "../../../shared/lib/log.js";

/** The composition's Key Vault events store and recheck queue: chosen from the settings, or the seams'. */

const ENV: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

const built: Services[] = [];
function services(env: Env = ENV, seams: Parameters<typeof createServices>[1] = {}): Services {
  const made = createServices(loadSettings(env), seams);
  built.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(built.splice(0).map((s) => s.close()));
});

const base = {
  kind: "new-version" as const,
  vaultName: "kv",
  certificateName: "www",
  version: "v1",
  eventId: "e1",
  claimedAt: new Date(),
};
const record = { key: eventKey(base), ...base };
const MESSAGE: RecheckMessage = {
  account: "default",
  vaultName: "kv",
  certificateName: "www",
  version: "v1",
  names: ["www.contoso.com"],
  until: "2026-12-03T10:00:00.000Z",
  attempt: 1,
};

describe("the composition's vault events store and recheck queue", () => {
  it("without storage: both in this process; a recheck sent is delivered (to the use case) and settles", async () => {
    const one = services();
    const ports = one.forAccount();
    expect(ports.vaultEvents.kind).toBe("memory");
    expect(ports.recheckQueue.kind).toBe("inline");
    expect(await ports.vaultEvents.claim("default", record, 60_000)).toBe("claimed");
    expect(await one.app.vaultEvents.claim("default", record, 60_000)).toBe("held");
    await ports.recheckQueue.send(MESSAGE, 0, silentLogger);
    await ports.recheckQueue.settled?.();
  });

  it("with the app's storage: the table, shared by two instances (one claim between them), and the Storage Queue", async () => {
    const env = { ...ENV, AzureWebJobsStorage: inject("azuriteTableConnectionString") };
    const [a, b] = [services(env).forAccount(), services(env).forAccount()];
    expect([a.vaultEvents.kind, a.recheckQueue.kind]).toEqual(["table", "storage"]);
    // An account of its own: the table is the deployment's one, shared with other tests.
    const account = `t-${randomUUID()}`;
    const claims = await Promise.all(
      [a, b].map((p) => p.vaultEvents.claim(account, record, 60_000)),
    );
    expect(claims.sort()).toEqual(["claimed", "held"]);
  });

  it("the seams' store and queue replace the settings' choice", async () => {
    const sent: RecheckMessage[] = [];
    const recheckQueue: RecheckQueue = {
      kind: "storage",
      send: async (m) => {
        sent.push(m);
      },
    };
    const vaultEvents = memoryVaultEventStore();
    const ports = services(ENV, { vaultEvents, recheckQueue }).forAccount();
    expect(ports.vaultEvents).toBe(vaultEvents);
    await ports.recheckQueue.send(MESSAGE, 1_000, silentLogger);
    expect(sent).toEqual([MESSAGE]);
  });
});
