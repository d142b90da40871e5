import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { shutdownAzureMonitor } from "@azure/monitor-opentelemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTRUMENTS } from "../../../../shared/adapters/telemetry/otelTelemetry.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { type AccountPorts, createAccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { Logger } from "../../../../shared/lib/log.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import {
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../../../sim/index.js";
import { makeSelfSignedCert } from "../../../support/tls.js";

/**
 * The production path: APPLICATIONINSIGHTS_CONNECTION_STRING set, the runtime imports the Azure
 * Monitor distribution on first use, and a sweep's telemetry reaches the ingestion endpoint,
 * here a local HTTPS receiver (the exporter only speaks https). This file runs in its own
 * process (vitest forks), so the distribution's global providers stay here.
 */

interface Envelope {
  name: string;
  data: {
    baseType: string;
    baseData: {
      name?: string;
      metrics?: Array<{ name: string; value: number; count?: number }>;
      properties?: Record<string, string>;
      success?: boolean;
    };
  };
}

const NOW = new Date("2026-03-01T03:00:00Z");
const now = () => NOW;
// Only in this process: the receiver's certificate is self-signed and the distribution offers no
// way to trust a CA of ours. Everything else keeps the distribution off the network (no
// statsbeat, no instance metadata probes).
const ENV = {
  NODE_TLS_REJECT_UNAUTHORIZED: "0",
  APPLICATIONINSIGHTS_STATSBEAT_DISABLED: "true",
  APPLICATIONINSIGHTS_SDKSTATS_DISABLED: "true",
  OTEL_NODE_RESOURCE_DETECTORS: "env",
};

let receiver: Server;
const received: Envelope[] = [];
const bodies: string[] = [];
let sim: Simulator;
let runtime: AccountPorts;
const saved = new Map<string, string | undefined>();

beforeAll(async () => {
  for (const [key, value] of Object.entries(ENV)) {
    saved.set(key, process.env[key]);
    process.env[key] = value;
  }
  receiver = createServer(await makeSelfSignedCert(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const text = body.toString("utf8");
      bodies.push(text);
      const items = JSON.parse(text) as Envelope[];
      received.push(...items);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ itemsReceived: items.length, itemsAccepted: items.length, errors: [] }),
      );
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  sim = await startSimulator({ now, certificates: sampleCertificates(NOW) });
  runtime = createAccountPorts(
    loadSettings({
      ...sandboxSettings(sim),
      APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-4000-8000-000000000001;IngestionEndpoint=https://127.0.0.1:${port}/`,
    }),
    { now, ledger: memoryLedger() },
  );
}, 60_000);

afterAll(async () => {
  await shutdownAzureMonitor();
  await runtime?.close();
  await sim?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** Waits until the receiver holds what `ready` looks for (the exporter sends in batches). */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ready(); i++) await new Promise((r) => setTimeout(r, 50));
}

function metric(name: string): Array<{ value: number; count?: number } & Record<string, unknown>> {
  return received.flatMap((e) =>
    (e.data.baseData.metrics ?? [])
      .filter((m) => m.name === name)
      .map((m) => ({ ...e.data.baseData.properties, value: m.value, count: m.count })),
  );
}

describe("telemetry to Application Insights", () => {
  it("sends the sweep's span (the only one of a fresh instance: not sampled away) and metrics", async () => {
    const lines: string[] = [];
    const log: Logger = {
      info: (m) => lines.push(m),
      warn: (m) => lines.push(m),
      error: (m) => lines.push(m),
    };
    const summary = await sweep(runtime, log);
    expect(summary.counts).toMatchObject({ due: 7, "renewal-scheduled": 6, failed: 1 });
    expect(lines.filter((l) => l.includes("telemetry"))).toEqual([]);

    const sweeps = () =>
      received.filter(
        (e) =>
          e.data.baseType === "RemoteDependencyData" &&
          e.data.baseData.name === INSTRUMENTS.sweepSpan,
      );
    await until(
      () =>
        sweeps().length > 0 &&
        metric(INSTRUMENTS.daysLeft).length === 7 &&
        metric(INSTRUMENTS.tokenDuration).length > 0,
    );

    const [span] = sweeps();
    expect(sweeps()).toHaveLength(1);
    expect(span?.data.baseData.success).toBe(false);
    expect(span?.data.baseData.properties).toMatchObject({
      "certsched.count.due": "7",
      "certsched.count.renewal_scheduled": "6",
      "certsched.count.failed": "1",
    });
    expect(metric(INSTRUMENTS.daysLeft)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ certificate: "legacy-fabrikam-com", value: -1 }),
        expect.objectContaining({ certificate: "vault-fabrikam-com", value: 2 }),
      ]),
    );
    expect(metric(INSTRUMENTS.outcomes)).toEqual(
      expect.arrayContaining([expect.objectContaining({ outcome: "renewal-scheduled", value: 6 })]),
    );
    expect(metric(INSTRUMENTS.tokenDuration)).toEqual([
      expect.objectContaining({ status: "200", count: 2 }),
    ]);

    const everything = bodies.join("\n");
    for (const secret of [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()]) {
      expect(everything).not.toContain(secret);
    }
  });
});
