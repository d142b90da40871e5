import { randomBytes } from "node:crypto";
import { loadSettings } from "../shared/app/config/settings.js";
import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import { createRuntime, type Runtime } from "../shared/app/services.js";
import { memoryHistory } from "../shared/core/ports/history.js";
import { memoryInventory } from "../shared/core/ports/inventory.js";
import type { Ledger, LedgerRecord } from "../shared/core/ports/ledger.js";
import { dashboardQuery, dashboardResponse } from "../shared/edge/dashboard/dashboardPage.js";
import { handle } from "../shared/edge/handle.js";
import { type LocalServer, startLocalServer } from "../shared/edge/localServer.js";
import { parseQuery } from "../shared/edge/parseQuery.js";
import { silentLogger as quiet } from "../shared/lib/log.js";
import { dashboard } from "../shared/usecases/dashboard.js";
import { verifyInventory } from "../shared/usecases/steps/verifyInventory.js";
import { sweepWith } from "../shared/usecases/sweep.js";
import type { Sandbox } from "./sandbox.js";

/**
 * `certsched sandbox --dashboard`: the function app's dashboard page, served from the sandbox on
 * a loopback port. One sweep and one verification run first (in memory), so the page shows what
 * certsched knows after a run: the inventory, the ledger's renewals, the staged refusal and the
 * certificate that has not landed yet.
 */

/** The schedule the sample settings and the infra use: the page's "next scheduled run". */
const SAMPLE_SCHEDULE = "0 0 3 * * *";

export interface SandboxDashboard {
  /** The page, with the server's throwaway function key as `?code=` (the host's way). */
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

async function fill(runtime: Runtime, sandbox: Sandbox): Promise<void> {
  await sweepWith(runtime, quiet, { trigger: "cli" });
  await verifyInventory(runtime, quiet, {
    trigger: "cli",
    // What each domain serves, on the simulator's hosting endpoint, and what its vault holds
    // (vault hosts routed there first: no vault token leaves the machine), trusting only its CA.
    settings: loadVerifySettings({
      CERTSCHED_VERIFY_CONNECT_TO:
        sandbox.settings.CERTSCHED_VERIFY_CONNECT_TO ?? sandbox.hosting.connectTo,
      CERTSCHED_HTTP_TIMEOUT: "10s",
    }),
    ca: [sandbox.hosting.caPem],
    keyVault: { clientOptions: { tlsOptions: { ca: sandbox.hosting.caPem } } },
  });
}

export async function serveSandboxDashboard(
  sandbox: Sandbox,
  options: { port?: number } = {},
): Promise<SandboxDashboard> {
  const listed = listing(sandbox.ledger);
  // The sandbox's own settings, whatever the environment says: it must never reach a real account.
  const runtime = createRuntime(loadSettings(sandbox.settings), {
    ledger: listed.ledger,
    history: memoryHistory(),
    inventory: memoryInventory(),
  });
  // A throwaway key, checked as the host checks function keys: other local users and pages
  // cannot read the page without the URL printed to whoever started the sandbox.
  const key = randomBytes(16).toString("hex");
  let server: LocalServer;
  try {
    await fill(runtime, sandbox);
    const sources = {
      status: {
        inventory: runtime.inventory,
        ledgerRows: async () => ({ items: listed.rows(), invalid: [] }),
        ledgerRow: async (id: number) => (await listed.ledger.read(id))?.record,
      },
      history: runtime.history,
    };
    server = await startLocalServer({
      functionKey: key,
      ...(options.port === undefined ? {} : { port: options.port }),
      routes: {
        "/api/dashboard": (request, context) =>
          handle(context, async () => {
            const query = parseQuery(request, dashboardQuery);
            const page = await dashboard(runtime, sources, { schedule: SAMPLE_SCHEDULE });
            return dashboardResponse(page, query, request.url);
          }),
      },
    });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return {
    url: `${server.origin}/api/dashboard?code=${key}`,
    close: async () => {
      await server.close();
      await runtime.close();
    },
  };
}
