import { afterEach, describe, expect, it } from "vitest";
import { memoryRunStore } from "../../../shared/adapters/storage/memory/memoryRunStore.js";
import { DEFAULT_ACCOUNT } from "../../../shared/app/accountServices.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { createAccountPorts, createServices, type Services } from "../../../shared/app/services.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import type { Env } from "../../../shared/core/settings.js";
import { ConfigError } from "../../../shared/lib/errors.js";

/** The composition root (docs/design/floor-plan.md, rule 5): app services once, accounts apart. */

const ENV: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

const built: Services[] = [];
function services(seams: Parameters<typeof createServices>[1] = {}): Services {
  const made = createServices(loadSettings(ENV), seams);
  built.push(made);
  return made;
}

afterEach(async () => {
  await Promise.all(built.splice(0).map((s) => s.close()));
});

describe("createServices", () => {
  it("builds the one account on first use and gives the same one after", () => {
    const s = services();
    const account = s.account();
    expect(account.account).toBe(DEFAULT_ACCOUNT);
    expect(s.account()).toBe(account);
    expect(s.account(DEFAULT_ACCOUNT)).toBe(account);
    expect(account.settings.baseUrl).toBe("https://certs.example.com");
  });

  it("refuses another account, naming it as a configuration problem", () => {
    const s = services();
    let error: unknown;
    try {
      s.account("contoso");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { name: "account", message: "'contoso' is unknown: the accounts are 'default'" },
    ]);
  });

  it("gives an account's ports with the app's services and the account's, the same object each time", () => {
    const ledger = memoryLedger();
    const store = memoryRunStore();
    const s = services({ ledger, runs: { store } });
    const runtime = s.forAccount();
    expect(s.forAccount()).toBe(runtime);
    // Each port named once: the notifier is the account's (naming it), never the app's.
    expect(runtime.notifier).toBe(s.account().notifier);
    expect(Object.keys(runtime)).not.toContain("app");
    // App-wide: storage, runs, notifier, transport.
    expect(runtime.ledger).toBe(ledger);
    expect(runtime.runs.store).toBe(store);
    expect(runtime.runs).toBe(s.app.runs);
    expect(runtime.http).toBe(s.app.http);
    // Per account: tokens, secrets, the service client and its request count.
    expect(runtime.tokens).toBe(s.account().tokens);
    expect(runtime.client).toBe(s.account().client);
    expect(runtime.requests).toBe(s.account().requests);
  });

  it("shares nothing between two compositions: tokens, secrets, client, counts, transport, runs", () => {
    const a = services();
    const b = services();
    for (const key of ["tokens", "secrets", "client", "requests", "probes"] as const) {
      expect(a.account()[key]).not.toBe(b.account()[key]);
    }
    expect(a.app.http).not.toBe(b.app.http);
    expect(a.app.runs.store).not.toBe(b.app.runs.store);
  });

  it("without storage, keeps runs in this process (memory store, inline queue)", () => {
    const runtime = createAccountPorts(loadSettings(ENV));
    built.push({ close: () => runtime.close() } as Services);
    expect(runtime.ledger.kind).toBe("none");
    expect(runtime.runs.queue.kind).toBe("inline");
  });

  it("with a storage connection, uses the tables and the Storage Queue", () => {
    const runtime = createAccountPorts(
      loadSettings({ ...ENV, AzureWebJobsStorage: "UseDevelopmentStorage=true" }),
    );
    built.push({ close: () => runtime.close() } as Services);
    expect(runtime.ledger.kind).toBe("table");
    expect(runtime.history.kind).toBe("table");
    expect(runtime.runs.queue.kind).toBe("storage");
  });
});
