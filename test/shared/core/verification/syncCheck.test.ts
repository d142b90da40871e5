import { X509Certificate } from "node:crypto";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCertificate, probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import type { KeyVaultRead, ProbeResult } from "../../../../shared/core/ports/probes.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import { needsPerson } from "../../../../shared/core/verification/inventoryResult.js";
import { type AcceptedRenewal, judge } from "../../../../shared/core/verification/judge.js";
import {
  DEFAULT_SYNC_WINDOW_MS,
  type VaultVersion,
  vaultVersionOf,
} from "../../../../shared/core/verification/syncCheck.js";
import { type Issued, makeCa, makeLeaf } from "../../../support/certificates.js";
import { type RecordingServer, startTlsServer } from "../../../support/tlsServers.js";

/**
 * not-synced (the contract's slot 9): a domain bound to a vault certificate serving an older
 * certificate than the vault's current version. The served side crosses a real socket; the vault
 * side is what the vault read gives (keyVaultProbe.ts: describeCertificate of the version's DER,
 * and its createdOn). The clock is injected.
 */

const HOUR = 3_600_000;
const DAY = 86_400_000;
const HOST = "www.contoso.test";
const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

const ca = makeCa("certsched sync test CA");
const CA = [...tls.rootCertificates, ca.cert];
/** What the domain serves: issued 60 days ago, 30 days left. */
const old = makeLeaf(ca, { names: [HOST], notBefore: at(-60 * DAY), notAfter: at(30 * DAY) });
/** The vault's current version: issued a day ago, 89 days left. */
const renewed = makeLeaf(ca, {
  names: [HOST],
  notBefore: at(-DAY),
  notAfter: at(89 * DAY),
  serial: "0A0B",
});
/** Created in the vault exactly 10 hours before `now`. */
const CREATED = at(-10 * HOUR);

const servers: RecordingServer[] = [];
let servedOld: ProbeResult;
let servedRenewed: ProbeResult;
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function observe(issued: Issued): Promise<ProbeResult> {
  const server = await startTlsServer(issued);
  servers.push(server);
  return probeTls(
    { host: HOST, port: 443 },
    { connectTo: parseConnectTo(`${HOST}:443:127.0.0.1:${server.port}`), timeoutMs: 5_000, ca: CA },
  );
}

beforeAll(async () => {
  servedOld = await observe(old);
  servedRenewed = await observe(renewed);
});

/** A successful vault read of `issued`, as keyVaultProbe.ts makes it. */
function vaultRead(issued: Issued, createdOn: Date | undefined = CREATED): KeyVaultRead {
  return {
    reached: true,
    connectedTo: "kv-prod.vault.azure.net",
    certificate: describeCertificate(new X509Certificate(issued.cert).raw),
    chainProblem: undefined,
    nameProblem: undefined,
    version: "0123456789abcdef0123456789abcdef",
    createdOn,
  };
}

const vaultOf = (issued: Issued, createdOn?: Date): VaultVersion =>
  vaultVersionOf("kv-prod/www-contoso", vaultRead(issued, createdOn)) as VaultVersion;

function judged(
  probe: ProbeResult,
  when: Date,
  options: { vault?: VaultVersion; renewal?: AcceptedRenewal; syncWindowMs?: number } = {},
) {
  return judge({ host: HOST, port: 443 }, probe, {
    now: when,
    warnDays: 14,
    windowMs: 2 * HOUR,
    ...options,
  });
}

describe("not-synced: the domain serves an older certificate than the vault's current version", () => {
  it("is pending within CERTSCHED_SYNC_WINDOW of the version's creation, not-synced from then on (pinned on both sides)", () => {
    const vault = vaultOf(renewed);
    const window = DEFAULT_SYNC_WINDOW_MS;
    const justUnder = judged(servedOld, new Date(CREATED.getTime() + window - 1), { vault });
    const exactly = judged(servedOld, new Date(CREATED.getTime() + window), { vault });
    const over = judged(servedOld, new Date(CREATED.getTime() + window + 1), { vault });

    expect(window).toBe(24 * HOUR);
    expect(justUnder.status).toBe("pending");
    expect(justUnder.detail).toContain(
      "its consumers may take up to 24 h to pick it up (CERTSCHED_SYNC_WINDOW)",
    );
    // `since < window` is pending, as CERTSCHED_VERIFY_WINDOW's: at exactly 24 h it is not-synced.
    expect(exactly.status).toBe("not-synced");
    expect(over.status).toBe("not-synced");
    expect(needsPerson(justUnder)).toBe(false);
    expect(needsPerson(exactly)).toBe(true);
  });

  it("says what is served, what the vault holds since when, and what to do", () => {
    const verdict = judged(servedOld, at(30 * HOUR), { vault: vaultOf(renewed) });
    if (!servedOld.reached) throw new Error("not served");
    const served = servedOld.certificate.thumbprint;
    const held = describeCertificate(new X509Certificate(renewed.cert).raw).thumbprint;

    expect(verdict).toMatchObject({ status: "not-synced", critical: false, daysLeft: 28 });
    expect(verdict.detail).toBe(
      `serves ${served.slice(0, 16)}… (issued ${at(-60 * DAY).toISOString()}) but vault kv-prod/www-contoso holds version 0123456789abcdef… (${held.slice(0, 16)}…) since ${CREATED.toISOString()} (more than 24 h, CERTSCHED_SYNC_WINDOW): re-sync the App Service certificate from Key Vault (or restart the app), or check that the gateway's / Front Door's identity can read the vault`,
    );
  });

  it("follows CERTSCHED_SYNC_WINDOW: 1 h makes 10 hours since the version not-synced", () => {
    const verdict = judged(servedOld, now, { vault: vaultOf(renewed), syncWindowMs: HOUR });

    expect(verdict.status).toBe("not-synced");
    expect(verdict.detail).toContain("(more than 1 h, CERTSCHED_SYNC_WINDOW)");
  });

  it("counts from the version's notBefore when the vault gives no createdOn", () => {
    const vault = { ...vaultOf(renewed), createdOn: undefined };

    // notBefore is a day ago: exactly the window.
    expect(judged(servedOld, now, { vault }).status).toBe("not-synced");
    expect(judged(servedOld, at(-1), { vault }).status).toBe("pending");
  });

  it("is ok when the domain serves the vault's current version, or one newer than it, or no vault is known", () => {
    const late = at(40 * DAY);
    // The same certificate as the vault's current version: synced.
    expect(judged(servedRenewed, at(30 * HOUR), { vault: vaultOf(renewed) }).status).toBe("ok");
    // Served newer than the vault (issued elsewhere, or the vault behind): not behind the vault.
    expect(judged(servedRenewed, at(30 * HOUR), { vault: vaultOf(old) }).status).toBe("ok");
    // The vault unreadable: no version to compare with, judged as before.
    const unreadable: KeyVaultRead = {
      reached: false,
      failure: "forbidden",
      status: 403,
      detail: "forbidden",
    };
    expect(vaultVersionOf("kv-prod/www-contoso", unreadable)).toBeUndefined();
    expect(judged(servedOld, at(30 * HOUR)).status).toBe("ok");
    expect(judged(servedOld, late, { vault: undefined }).status).toBe("expired");
  });

  it("precedence: not-synced before expiring; a renewal in flight stays pending / not-landed", () => {
    const vault = vaultOf(renewed);
    // 3 days left on the served certificate: critically expiring, but not-synced first.
    const nearEnd = at(27 * DAY);
    expect(judged(servedOld, nearEnd, { vault })).toMatchObject({
      status: "not-synced",
      critical: false,
      daysLeft: 3,
    });
    expect(judged(servedOld, nearEnd)).toMatchObject({ status: "expiring", critical: true });
    // A renewal certsched saw accepted an hour ago, the served certificate not later: pending
    // (slot 8) wins over not-synced (slot 9), even past the sync window.
    const renewal = { acceptedAt: at(30 * HOUR - HOUR), expiryAtRequest: at(30 * DAY) };
    const inFlight = judged(servedOld, at(30 * HOUR), { vault, renewal });
    expect(inFlight.status).toBe("pending");
    expect(inFlight.detail).toContain("CERTSCHED_VERIFY_WINDOW");
    // After the expired check (slot 7): an expired served certificate is expired.
    expect(judged(servedOld, at(31 * DAY), { vault }).status).toBe("expired");
  });
});
