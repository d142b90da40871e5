import { getEventListeners } from "node:events";
import tls from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../../shared/adapters/probes/tlsProbe.js";
import { loadVerifySettings } from "../../../shared/app/config/verifySettings.js";
import { type NamedEndpoint, parseEndpoint } from "../../../shared/core/verification/endpoint.js";
import { verifyTargets } from "../../../shared/usecases/verifyDomains.js";
import { makeCa, makeLeaf } from "../../support/certificates.js";
import { startSilentServer, startTlsServer } from "../../support/tlsServers.js";

/**
 * Verifying 30-40 endpoints with one signal (the invocation's) once printed Node's
 * MaxListenersExceededWarning: each probe in flight added its own "abort" listener to it.
 */

const DAY = 86_400_000;
const ca = makeCa("abort listeners CA");
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const endpoints = (n: number): NamedEndpoint[] =>
  Array.from({ length: n }, (_, i) => parseEndpoint(`h${i}.many.test`) as NamedEndpoint);

/** Node's process warnings raised while `work` runs (and the ticks after it). */
async function warningsDuring<T>(work: () => Promise<T>): Promise<{ value: T; warnings: Error[] }> {
  const warnings: Error[] = [];
  const collect = (warning: Error) => warnings.push(warning);
  process.on("warning", collect);
  try {
    const value = await work();
    // A warning is emitted on a later tick than the listener that caused it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { value, warnings };
  } finally {
    process.off("warning", collect);
  }
}

describe("one signal for many probes", () => {
  it("verifying 40 endpoints with one signal raises no MaxListenersExceededWarning and leaves no listener", async () => {
    const server = await startTlsServer(
      makeLeaf(ca, {
        names: ["*.many.test"],
        notBefore: new Date(Date.now() - DAY),
        notAfter: new Date(Date.now() + 60 * DAY),
      }),
    );
    closers.push(() => server.close());
    const controller = new AbortController();
    const { value: results, warnings } = await warningsDuring(() =>
      verifyTargets(
        endpoints(40).map((endpoint) => ({ endpoint })),
        {
          probes: { tls: probeTls },
          settings: loadVerifySettings({
            CERTSCHED_VERIFY_CONNECT_TO: `::127.0.0.1:${server.port}`,
            CERTSCHED_HTTP_TIMEOUT: "10s",
          }),
          now: () => new Date(),
          ca: [...tls.rootCertificates, ca.cert],
          concurrency: 40,
          signal: controller.signal,
        },
      ),
    );
    expect(results.map((r) => r.status)).toEqual(new Array(40).fill("ok"));
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("aborting the one signal still cancels every probe in flight, at once", async () => {
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const controller = new AbortController();
    const started = Date.now();
    const { value: results, warnings } = await warningsDuring(() => {
      const run = verifyTargets(
        endpoints(40).map((endpoint) => ({ endpoint })),
        {
          probes: { tls: probeTls },
          settings: loadVerifySettings({
            CERTSCHED_VERIFY_CONNECT_TO: `::127.0.0.1:${silent.port}`,
            CERTSCHED_HTTP_TIMEOUT: "30s",
          }),
          now: () => new Date(),
          concurrency: 40,
          signal: controller.signal,
        },
      );
      setTimeout(() => controller.abort(), 200);
      return run;
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const r of results) {
      expect(r).toMatchObject({ status: "unreachable" });
      expect(r.detail).toContain("the probe was cancelled");
    }
    expect(warnings).toEqual([]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
