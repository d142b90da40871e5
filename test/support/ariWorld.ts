import { inject } from "vitest";
import type { AccountPorts } from "../../shared/app/services.js";
import { APP_SERVICE } from "../../shared/core/certificate/fields.js";
import { type History, memoryHistory } from "../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../shared/core/ports/inventory.js";
import { type Ledger, memoryLedger } from "../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { type VerifyWithOptions, verifyWith } from "../../shared/usecases/verify.js";
import {
  type AcmeSimulator,
  type AcmeWindow,
  type Hosting,
  type Simulator,
  type SimulatorOptions,
  startAcme,
  startSimulator,
} from "../../sim/index.js";
import { collectingLogger, runtimeFor } from "./app.js";
import { fakeClock } from "./clock.js";

/**
 * ARI end to end: the simulator's service and hosting endpoint (its leaves carry an
 * Authority Key Identifier, issuer O=certsched simulator), and sim/acme as that issuer's CA,
 * every CertID answered with the window a test sets. One clock for all of them.
 */
export interface AriWorld {
  readonly sim: Simulator;
  readonly hosting: Hosting;
  readonly acme: AcmeSimulator;
  readonly runtime: AccountPorts;
  readonly clock: ReturnType<typeof fakeClock>;
  readonly inventory: Inventory;
  readonly ledger: Ledger;
  readonly history: History;
  readonly lines: { level: string; message: string }[];
  /** The window every CertID gets (undefined: 404, as for a certificate the CA did not issue). */
  setWindow(window: AcmeWindow | undefined): void;
  /** verifyWith as the timer runs it (trigger "timer"). */
  verify(more?: Partial<VerifyWithOptions>): ReturnType<typeof verifyWith>;
  /** The renewalInfo requests the CA saw. */
  ariAsked(): number;
  close(): Promise<void>;
}

export interface AriWorldOptions {
  readonly names?: readonly string[];
  /** More of the simulator's options (latency, a rate limit that counts requests in flight). */
  readonly sim?: Pick<SimulatorOptions, "latencyMs" | "rateLimit">;
  readonly env?: Record<string, string>;
  readonly history?: History;
}

export async function startAriWorld(options: AriWorldOptions = {}): Promise<AriWorld> {
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const t0 = clock.now().getTime();
  const names = options.names ?? ["www"];
  let window: AcmeWindow | undefined;
  const acme = await startAcme({
    ...inject("loopbackTls"),
    now: clock.now,
    defaultWindow: () => window,
  });
  const sim = await startSimulator({
    now: clock.now,
    completionDelayMs: 30 * 60_000,
    // Not due for months: only the CA's word renews them.
    certificates: names.map((name) => ({
      certificateName: name,
      rootDomain: `${name}.ari.test`,
      expiryDate: new Date(t0 + 80 * DAY_MS),
    })),
    hosting: {},
    ...options.sim,
  });
  const hosting = sim.hosting as Hosting;
  const inventory = memoryInventory();
  const ledger = memoryLedger();
  const history = options.history ?? memoryHistory();
  const runtime = runtimeFor(
    sim,
    {
      CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
      CERTSCHED_HTTP_TIMEOUT: "5s",
      CERTSCHED_ARI_DIRECTORIES: `certsched simulator=${acme.directoryUrl}`,
      CERTSCHED_ARI_TIMEOUT: "2s",
      ...(options.env ?? {}),
    },
    { now: clock.now, inventory, ledger, history },
  );
  await inventory.upsert(
    names.map((name) => ({
      certificateName: name,
      rootDomain: `${name}.ari.test`,
      target: APP_SERVICE,
      source: "created" as const,
      seenAt: clock.now(),
    })),
  );
  sim.reset();
  const { log, lines } = collectingLogger();
  return {
    sim,
    hosting,
    acme,
    runtime,
    clock,
    inventory,
    ledger,
    history,
    lines,
    setWindow: (w) => {
      window = w;
    },
    verify: (more = {}) =>
      verifyWith(runtime, log, { trigger: "timer", ca: [hosting.caPem], ...more }),
    ariAsked: () => acme.requests.filter((r) => r.path.startsWith("/renewal-info/")).length,
    close: async () => {
      await runtime.close();
      await sim.close();
      await acme.close();
    },
  };
}
