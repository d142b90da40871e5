import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { accountTables } from "../../shared/adapters/storage/accountTables.js";
import { tableInventory } from "../../shared/adapters/storage/tableInventory.js";
import type { Seams } from "../../shared/app/seams.js";
import { getServices } from "../../shared/app/services.js";
import { APP_SERVICE } from "../../shared/core/certificate/fields.js";
import { type Inventory, memoryInventory } from "../../shared/core/ports/inventory.js";
import type { PreflightCheck, PreflightStatus } from "../../shared/core/preflight/preflight.js";
import { CertschedError } from "../../shared/lib/errors.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { type SimAccounts, startSimAccounts } from "./accounts.js";
import { configureApp, releaseApp } from "./app.js";
import { startAzurite } from "./azurite.js";
import { httpRequest, invocationContext, type RequestInit } from "./invoke.js";
import { undecidedProbes } from "./preflight.js";
import { principalHeader } from "./principals.js";
import { type Reply, toReply } from "./reply.js";

/**
 * The function app with two declared accounts (each on its own simulator, with its own
 * credentials) over an Azurite of the suite's own, for the preflight functions: rows
 * seeded in each account's inventory table, real HttpRequest / InvocationContext objects, every
 * body and log line kept so a suite can prove no secret leaked.
 */

export const A = "contoso";
export const B = "fabrikam-eu";

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

/** A row seeded in an account's inventory, with the preflight stored for it (if any). */
export interface SeedRow {
  readonly name: string;
  /** Days until the service's expiry. */
  readonly days: number;
  readonly stored?: { readonly status: PreflightStatus; readonly checks: PreflightCheck[] };
}

export interface PreflightApp {
  readonly accounts: SimAccounts;
  readonly logs: string[];
  readonly bodies: string[];
  /** When the rows' stored preflights ran. */
  readonly at: Date;
  /** Points the app at both accounts and Azurite; `seams` replace what tests need to break. */
  configure(seams?: Seams): Promise<void>;
  seed(account: string, rows: readonly SeedRow[]): Promise<void>;
  /** The account's own inventory table, as the app builds it (to keep it beside a broken one). */
  tableInventoryOf(account: string): Inventory;
  call(handler: Handler, init: RequestInit): Promise<Reply>;
  /** A context whose lines land in `logs` (the timer). */
  context(name: string): InvocationContext;
  /** Every account's secret found in a body or a log line; [] when clean. */
  leaks(): string[];
  close(): Promise<void>;
}

/** An inventory that cannot be read: the table service's 503, as the adapter reports it. */
export function unreadableInventory(): Inventory {
  return {
    ...memoryInventory(),
    kind: "table",
    list: async () => {
      throw new CertschedError("INVENTORY_UNAVAILABLE", "inventory table: 503 Server Busy", {
        fault: "upstream",
      });
    },
  };
}

/** The x-ms-client-principal header of a caller with these app roles. */
export const principal = (roles: readonly string[]) => ({
  "x-ms-client-principal": principalHeader({ name: "ada@contoso.com", roles }),
});

export async function startPreflightApp(): Promise<PreflightApp> {
  const azurite = await startAzurite();
  let accounts: SimAccounts;
  try {
    accounts = await startSimAccounts([A, B]);
  } catch (error) {
    await azurite.stop();
    throw error;
  }
  const logs: string[] = [];
  const bodies: string[] = [];
  const at = new Date(Date.now() - 2 * 60 * 60 * 1000);
  const app: PreflightApp = {
    accounts,
    logs,
    bodies,
    at,
    async configure(seams = {}) {
      await configureApp(
        { ...accounts.env(), AzureWebJobsStorage: azurite.connectionString },
        { preflightProbes: undecidedProbes(), ...seams },
      );
    },
    tableInventoryOf(account) {
      return tableInventory({
        connectionString: azurite.connectionString,
        tableName: accountTables(account).inventory,
      });
    },
    async seed(account, rows) {
      const { inventory } = getServices().forAccount(account);
      const now = new Date();
      await inventory.upsert(
        rows.map((r) => ({
          certificateName: r.name,
          rootDomain: `${r.name}.${account}.example`,
          target: APP_SERVICE,
          challengeType: "http",
          serviceExpiry: new Date(now.getTime() + (r.days + 0.5) * DAY_MS),
          source: "due-list" as const,
          seenAt: now,
        })),
      );
      for (const r of rows) {
        if (!r.stored) continue;
        await inventory.recordPreflight(r.name, {
          at,
          rootDomain: `${r.name}.${account}.example`,
          ...r.stored,
        });
      }
    },
    async call(handler, init) {
      const reply = toReply(await handler(httpRequest(init), app.context(handler.name)));
      bodies.push(reply.text);
      return reply;
    },
    context(name) {
      return invocationContext(name, (_level, message) => logs.push(message));
    },
    leaks() {
      const texts = [...logs, ...bodies];
      return accounts.secrets().filter((secret) => texts.some((t) => t.includes(secret)));
    },
    async close() {
      await releaseApp();
      await accounts.close();
      await azurite.stop();
    },
  };
  await app.configure();
  return app;
}
