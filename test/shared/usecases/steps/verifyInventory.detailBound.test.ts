import tls from "node:tls";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { fromServiceRecord } from "../../../../shared/core/inventory/fromRecords.js";
import { memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import {
  type NamedEndpoint,
  parseEndpoint,
} from "../../../../shared/core/verification/endpoint.js";
import { boundDetail, boundWithNote, MAX_DETAIL } from "../../../../shared/lib/text/boundDetail.js";
import { escapeControl } from "../../../../shared/lib/text/escapeControl.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { verifyInventory } from "../../../../shared/usecases/steps/verifyInventory.js";
import { verifyTargets } from "../../../../shared/usecases/verifyDomains.js";
import { startSimulator } from "../../../../sim/index.js";
import { collectingLogger, runtimeFor } from "../../../support/app.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { propertyRuns } from "../../../support/fastCheck.js";
import { startTlsServer } from "../../../support/tlsServers.js";

/**
 * One 30,000-character SAN once gave a 30,590-character `mismatch` detail in the CLI's and the HTTP
 * API's output. Every detail is bounded (detail.ts), counted after escaping.
 */

const ca = makeCa("detail bound CA");
const HUGE = `${"a".repeat(29_990)}.test`;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function hugeSanServer(): Promise<number> {
  const server = await startTlsServer(
    makeLeaf(ca, {
      names: [HUGE, `b\u001b[2J${"b".repeat(300)}.test`, "c.test"],
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 60 * DAY_MS),
    }),
  );
  closers.push(() => server.close());
  return server.port;
}

describe("a certificate with a 30,000-character name", () => {
  it("verify --domain (verifyTargets): a mismatch detail of at most MAX_DETAIL characters, still naming what matters", async () => {
    const port = await hugeSanServer();
    const [r] = await verifyTargets(
      [{ endpoint: parseEndpoint("www.contoso.test") as NamedEndpoint }],
      {
        probes: { tls: probeTls },
        settings: loadVerifySettings({
          CERTSCHED_VERIFY_CONNECT_TO: `::127.0.0.1:${port}`,
          CERTSCHED_HTTP_TIMEOUT: "5s",
        }),
        now: () => new Date(),
        ca: [...tls.rootCertificates, ca.cert],
      },
    );
    expect(r?.status).toBe("mismatch");
    expect(r?.detail.length).toBeLessThanOrEqual(MAX_DETAIL);
    expect(r?.detail).toMatch(
      /^the certificate served does not cover www\.contoso\.test: it names DNS:a{95}…, DNS:"b\\u001b\[2Jb{84}…, DNS:c\.test$/,
    );
  });

  it("the inventory run (the HTTP API's and the timer's): bounded too, the unreachable grace note kept whole", async () => {
    const port = await hugeSanServer();
    const sim = await startSimulator({ certificates: [] });
    const runtime = runtimeFor(
      sim,
      { CERTSCHED_WATCH: `www.contoso.test, ${HUGE.slice(0, 60)}.invalid` },
      { inventory: memoryInventory(), ledger: memoryLedger() },
    );
    closers.push(async () => {
      await runtime.close();
      await sim.close();
    });
    const v = await verifyInventory(runtime, collectingLogger().log, {
      trigger: "http",
      settings: loadVerifySettings({
        CERTSCHED_VERIFY_CONNECT_TO: `www.contoso.test:443:127.0.0.1:${port}`,
        CERTSCHED_HTTP_TIMEOUT: "5s",
      }),
      ca: [...tls.rootCertificates, ca.cert],
    });
    const mismatch = v.results.find((r) => r.status === "mismatch");
    expect(mismatch?.detail.length).toBeLessThanOrEqual(MAX_DETAIL);
    expect(mismatch?.detail).toContain("does not cover www.contoso.test");
    const unreachable = v.results.find((r) => r.status === "unreachable");
    expect(unreachable?.detail).toMatch(
      /; unreachable since \S+Z; an error once that is 1 d \(CERTSCHED_VERIFY_UNREACHABLE_AFTER\) ago$/,
    );
    for (const r of v.results) expect(r.detail.length).toBeLessThanOrEqual(MAX_DETAIL);
    for (const line of v.problems) expect(line.length).toBeLessThan(2 * MAX_DETAIL);
  });
});

describe("a certificate whose issuer is 30,000 characters", () => {
  it("verify --domain (verifyTargets): the issuer is bounded like a detail, its start kept", async () => {
    const longCa = makeCa(`Evil\u001b[2J CA ${"i".repeat(30_000)}`);
    const server = await startTlsServer(
      makeLeaf(longCa, {
        names: ["www.contoso.test"],
        notBefore: new Date(Date.now() - DAY_MS),
        notAfter: new Date(Date.now() + 60 * DAY_MS),
      }),
    );
    closers.push(() => server.close());
    const [r] = await verifyTargets(
      [{ endpoint: parseEndpoint("www.contoso.test") as NamedEndpoint }],
      {
        probes: { tls: probeTls },
        settings: loadVerifySettings({
          CERTSCHED_VERIFY_CONNECT_TO: `::127.0.0.1:${server.port}`,
          CERTSCHED_HTTP_TIMEOUT: "5s",
        }),
        now: () => new Date(),
        ca: [...tls.rootCertificates, longCa.cert],
      },
    );
    expect(r?.status).toBe("ok");
    expect(r?.issuer?.length).toBe(MAX_DETAIL);
    // Node writes the DN as RFC 4514 does (ESC as \1B); the bound keeps its start.
    expect(r?.issuer).toMatch(/^CN=Evil\\1B\[2J CA i+…$/);
  });
});

describe("a result's domain made from the service's words (a vault, a certificate name)", () => {
  it("is bounded and escaped like a refused name's: a 30,000-character vault or certificate name, a control character", async () => {
    const now = new Date();
    const long = "k".repeat(30_000);
    const sim = await startSimulator({
      certificates: [
        // An invalid vault name: its domain is "vault/certificate".
        {
          certificateName: "kv-1",
          target: KEY_VAULT,
          keyVaultName: `v${long}`,
          expiryDate: new Date(now.getTime() + 10 * DAY_MS),
        },
        // No endpoint to look at: the domain is the certificate's name.
        {
          certificateName: `dns-${long}`,
          target: "Cloud DNS",
          expiryDate: new Date(now.getTime() + 10 * DAY_MS),
        },
        {
          certificateName: "kv-2",
          rootDomain: "a\u001b[2Jb.test",
          target: KEY_VAULT,
          expiryDate: new Date(now.getTime() + 10 * DAY_MS),
        },
      ],
    });
    const inventory = memoryInventory();
    const runtime = runtimeFor(sim, {}, { inventory, ledger: memoryLedger() });
    closers.push(async () => {
      await runtime.close();
      await sim.close();
    });
    const { certificates } = await runtime.client.listDue();
    await inventory.upsert(certificates.map((c) => fromServiceRecord(c, "due-list", now)));
    const v = await verifyInventory(runtime, collectingLogger().log, {
      trigger: "http",
      settings: loadVerifySettings({ CERTSCHED_HTTP_TIMEOUT: "5s" }),
    });
    expect(v.results).toHaveLength(3);
    for (const r of v.results) {
      expect(r.status, r.domain.slice(0, 20)).toBe("unverifiable");
      expect(r.domain.length, r.domain.slice(0, 20)).toBeLessThanOrEqual(300);
      expect(r.detail.length).toBeLessThanOrEqual(MAX_DETAIL);
      expect(r.domain).not.toContain("\u001b");
    }
    const byName = Object.fromEntries(v.results.map((r) => [r.certificateName?.slice(0, 4), r]));
    expect(byName["kv-1"]?.domain).toMatch(/^vk+…$/);
    expect(byName["dns-"]?.domain).toMatch(/^dns-k+…$/);
    expect(byName["kv-2"]?.domain).toBe("a\\u{1b}[2Jb.test");
  });
});

describe("a failing certificate with a 30,000-character name", () => {
  it("its problem line (the failed run's message, the log) names it bounded", async () => {
    const port = await hugeSanServer();
    const now = new Date();
    const name = `n${"m".repeat(30_000)}`;
    const sim = await startSimulator({
      certificates: [
        {
          certificateName: name,
          rootDomain: "www.contoso.test",
          expiryDate: new Date(now.getTime() + 10 * DAY_MS),
        },
      ],
    });
    const inventory = memoryInventory();
    const runtime = runtimeFor(sim, {}, { inventory, ledger: memoryLedger() });
    closers.push(async () => {
      await runtime.close();
      await sim.close();
    });
    const { certificates } = await runtime.client.listDue();
    await inventory.upsert(certificates.map((c) => fromServiceRecord(c, "due-list", now)));
    const v = await verifyInventory(runtime, collectingLogger().log, {
      trigger: "timer",
      settings: loadVerifySettings({
        CERTSCHED_VERIFY_CONNECT_TO: `www.contoso.test:443:127.0.0.1:${port}`,
        CERTSCHED_HTTP_TIMEOUT: "5s",
      }),
      ca: [...tls.rootCertificates, ca.cert],
    });
    expect(v.results[0]?.status).toBe("mismatch");
    expect(v.problems).toHaveLength(1);
    expect(v.problems[0]?.length).toBeLessThan(2 * MAX_DETAIL);
    expect(v.problems[0]).toMatch(
      /^nm+… \(www\.contoso\.test\): mismatch: the certificate served does not cover/,
    );
  });
});

describe("boundDetail and boundWithNote", () => {
  it("exactly MAX_DETAIL characters stay whole; one more is cut to MAX_DETAIL with an ellipsis", () => {
    expect(boundDetail("x".repeat(MAX_DETAIL))).toBe("x".repeat(MAX_DETAIL));
    expect(boundDetail("x".repeat(MAX_DETAIL + 1))).toBe(`${"x".repeat(MAX_DETAIL - 1)}…`);
    expect(boundDetail("ab\u001bcd", 6)).toBe("ab…");
    expect(boundDetail("ab\u001bcd", 9)).toBe("ab\\u{1b}…");
    expect(boundDetail("ab\u001bcd", 10)).toBe("ab\\u{1b}cd");
    expect(boundDetail("ab😀cd", 4)).toBe("ab…");
  });

  it("any text: at most max characters, escaped, whole escapes and characters, a prefix of the escaped text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 700 }),
        fc.integer({ min: 1, max: 600 }),
        (text, max) => {
          const escaped = escapeControl(text);
          const out = boundDetail(text, max);
          if (out.length > max) return false;
          if (escapeControl(out) !== out) return false;
          // No surrogate half the cut made: one at the end would have had its pair in `text`.
          if (/[\ud800-\udbff]…$/.test(out)) return false;
          if (escaped.length <= max) return out === escaped;
          const kept = out.slice(0, -1);
          return (
            out.endsWith("…") && escaped.startsWith(kept) && !/\\u(?:\{[0-9a-f]*)?$/.test(kept)
          );
        },
      ),
      { numRuns: propertyRuns(1_000) },
    );
  });

  it("a note is kept whole and the whole stays within max", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 900 }), fc.string({ maxLength: 150 }), (cause, note) => {
        const out = boundWithNote(cause, note);
        return out.length <= MAX_DETAIL && out.endsWith(`; ${escapeControl(note)}`);
      }),
      { numRuns: propertyRuns(1_000) },
    );
  });
});
