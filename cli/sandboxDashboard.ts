import { randomBytes } from "node:crypto";
import { loadSettings } from "../shared/app/config/settings.js";
import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import { type AccountPorts, createServices } from "../shared/app/services.js";
import { memoryHistory } from "../shared/core/ports/history.js";
import { memoryInventory } from "../shared/core/ports/inventory.js";
import type { Ledger, LedgerRecord } from "../shared/core/ports/ledger.js";
import { dashboardQuery, dashboardResponse } from "../shared/edge/dashboard/dashboardPage.js";
import { handle } from "../shared/edge/handle.js";
import { type GetHandler, type LocalServer, startLocalServer } from "../shared/edge/localServer.js";
import { parseQuery } from "../shared/edge/parseQuery.js";
import { silentLogger as quiet } from "../shared/lib/log.js";
import { dashboard } from "../shared/usecases/dashboard.js";
import { discoverEstate } from "../shared/usecases/estate/discoverEstate.js";
import { verifyInventory } from "../shared/usecases/steps/verifyInventory.js";
import { sweep } from "../shared/usecases/sweep/sweep.js";
import { SANDBOX_ESTATE_ACCOUNT } from "../sim/sandboxEstate.js";
import type { Sandbox, SandboxAccount } from "./sandbox.js";

/**
 * `certsched sandbox --dashboard`: the function app's dashboard page, served from the sandbox on
 * a loopback port, one page per sandbox account (`/api/accounts/<name>/dashboard`). One sweep
 * and one verification of each account run first (in memory), so each page shows what certsched
 * knows of that account after a run: the inventory, the ledger's renewals, the staged refusal and the
 * certificate that has not landed yet. The estate account's discovery runs as its timer does
 * (the report kept, in memory), so its page's Estate section shows the gateway's certificate.
 */

/** The schedule the sample settings and the infra use: the page's "next scheduled run". */
const SAMPLE_SCHEDULE = "0 0 3 * * *";

export interface SandboxDashboard {
  /**
   * Each account's page (`/api/accounts/<name>/dashboard`), by account name, with the server's
   * throwaway function key as `?code=` (the host's way).
   */
  readonly urls: Readonly<Record<string, string>>;
  /** The first account's page. */
  readonly url: string;
  close(): Promise<void>;
}

/** A ledger that also lists what was written (the in-memory ledger keeps no listing). */
function listing(inner: Ledger): { ledger: Ledger; rows: () => LedgerRecord[] } {
  const rows = new Map<number, LedgerRecord>();
  return {
    ledger: {
      kind: inner.kind,
      open: () => inner.open(),
      read: (id) => inner.read(id),
      write: async (record, etag) => {
        const written = await inner.write(record, etag);
        if (written !== "conflict") rows.set(record.id, written.record);
        return written;
      },
    },
    rows: () => [...rows.values()],
  };
}

async function fill(runtime: AccountPorts, account: SandboxAccount): Promise<void> {
  await sweep(runtime, quiet, { trigger: "cli" });
  await verifyInventory(runtime, quiet, {
    trigger: "cli",
    // What each domain serves, on this account's simulator's hosting endpoint, and what its
    // vault holds (vault hosts routed there first: no vault token leaves the machine, or goes
    // to the other account's simulator), trusting only its CA.
    settings: loadVerifySettings({
      CERTSCHED_VERIFY_CONNECT_TO: account.connectTo,
      CERTSCHED_HTTP_TIMEOUT: "10s",
    }),
    ca: [account.hosting.caPem],
    keyVault: { clientOptions: { tlsOptions: { ca: account.hosting.caPem } } },
  });
  if (account.name === SANDBOX_ESTATE_ACCOUNT) {
    await discoverEstate(runtime, quiet, {
      trigger: "cli",
      keep: true,
      keyVault: { clientOptions: { tlsOptions: { ca: account.hosting.caPem } } },
    });
  }
}

/** The path of one account's page. */
export const accountDashboardPath = (account: string) => `/api/accounts/${account}/dashboard`;

export async function serveSandboxDashboard(
  sandbox: Sandbox,
  options: { port?: number } = {},
): Promise<SandboxDashboard> {
  const listed = new Map(sandbox.accounts.map((a) => [a.name, listing(a.ledger)]));
  const ledgerOf = (name: string) => {
    const found = listed.get(name);
    if (!found) throw new Error(`the sandbox has no account ${name}`);
    return found;
  };
  // The sandbox's own settings, whatever the environment says: it must never reach a real
  // account. Each account its own ledger, history and inventory.
  const services = createServices(loadSettings(sandbox.settings), {
    ledger: (name) => ledgerOf(name).ledger,
    history: () => memoryHistory(),
    inventory: () => memoryInventory(),
    // The sandbox's Resource Manager (Resource Graph): this process did not start trusting its CA.
    armCa: sandbox.preflight.caPem,
  });
  // A throwaway key, checked as the host checks function keys: other local users and pages
  // cannot read the page without the URL printed to whoever started the sandbox.
  const key = randomBytes(16).toString("hex");
  let server: LocalServer;
  try {
    const routes: Record<string, GetHandler> = {};
    for (const account of sandbox.accounts) {
      const runtime = services.forAccount(account.name);
      await fill(runtime, account);
      const listedLedger = ledgerOf(account.name);
      const sources = {
        status: {
          inventory: runtime.inventory,
          ledgerRows: async () => ({ items: listedLedger.rows(), invalid: [] }),
          ledgerRow: async (id: number) => (await listedLedger.ledger.read(id))?.record,
        },
        history: runtime.history,
      };
      routes[accountDashboardPath(account.name)] = (request, context) =>
        handle(context, async () => {
          const query = parseQuery(request, dashboardQuery);
          const page = await dashboard(
            runtime,
            sources,
            { schedule: SAMPLE_SCHEDULE },
            account.name,
          );
          return dashboardResponse(page, query, request.url);
        });
    }
    server = await startLocalServer({
      functionKey: key,
      ...(options.port === undefined ? {} : { port: options.port }),
      routes,
    });
  } catch (error) {
    await services.close();
    throw error;
  }
  const urls = Object.fromEntries(
    sandbox.accounts.map((a) => [
      a.name,
      `${server.origin}${accountDashboardPath(a.name)}?code=${key}`,
    ]),
  );
  return {
    urls,
    url: Object.values(urls)[0] ?? "",
    close: async () => {
      await server.close();
      await services.close();
    },
  };
}
