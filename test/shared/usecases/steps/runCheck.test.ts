import { describe, expect, it } from "vitest";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import type { LedgerEntry, LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import type {
  KeyVaultRead,
  ProbeOptions,
  ProbeResult,
  Probes,
  ServedCertificate,
} from "../../../../shared/core/ports/probes.js";
import { parseEndpoint } from "../../../../shared/core/verification/endpoint.js";
import type { AcceptedRenewal } from "../../../../shared/core/verification/judge.js";
import type { Check } from "../../../../shared/core/verification/plan.js";
import { SERVICE_NAME_RULE } from "../../../../shared/core/verification/publicAddress.js";
import type { VerifySettings } from "../../../../shared/core/verification/verifySettings.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { REDACTED } from "../../../../shared/lib/redact/redact.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import {
  acceptedRenewals,
  brokenCheck,
  checkKeyVault,
  runCheck,
} from "../../../../shared/usecases/steps/runCheck.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const SETTINGS: VerifySettings = {
  connectTo: [],
  warnDays: 14,
  windowMs: 2 * HOUR_MS,
  unreachableAfterMs: 24 * HOUR_MS,
  timeoutMs: 5_000,
};

const certificate = (daysLeft: number): ServedCertificate => ({
  notBefore: new Date(NOW.getTime() - 60 * DAY_MS),
  notAfter: new Date(NOW.getTime() + daysLeft * DAY_MS),
  issuer: "CN=Test CA",
  subject: "CN=www.contoso.com",
  serial: "0A",
  thumbprint: "AB",
  altNames: ["DNS:www.contoso.com"],
});

const served = (daysLeft: number): Extract<ProbeResult, { reached: true }> => ({
  reached: true,
  connectedTo: "www.contoso.com:443",
  certificate: certificate(daysLeft),
  chainProblem: undefined,
  nameProblem: undefined,
});

/** Probes answering as told, recording what they were asked. */
function probes(tls: ProbeResult, vault: KeyVaultRead = { ...served(40), version: "v1" }) {
  const asked: { tls: ProbeOptions[]; vault: string[] } = { tls: [], vault: [] };
  const fake: Probes = {
    tls: async (_endpoint, options) => {
      asked.tls.push(options);
      return tls;
    },
    keyVault: async (target) => {
      asked.vault.push(`${target.keyVaultName}/${target.keyVaultCertificateName ?? ""}`);
      return vault;
    },
  };
  return { fake, asked };
}

const record = (name: string, extra: Partial<InventoryRecord> = {}): InventoryRecord => ({
  certificateName: name,
  source: "due-list",
  firstSeen: NOW,
  lastSeen: NOW,
  ...extra,
});

function endpointOf(text: string) {
  const parsed = parseEndpoint(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

const noLedger = { kind: "none" as const, read: async () => undefined };
const ports = (fake: Probes) => ({ probes: fake, ledger: noLedger, now: () => NOW });

describe("checkKeyVault", () => {
  it("never reads a vault whose name Azure would refuse", async () => {
    const { fake, asked } = probes(served(40));
    const result = await checkKeyVault(
      fake,
      { keyVaultName: "evil.example.com", certificateName: "web" },
      { settings: SETTINGS, now: () => NOW },
    );
    expect(result.status).toBe("unverifiable");
    expect(asked.vault).toEqual([]);
  });

  it("reads the vault's current version and judges it", async () => {
    const { fake, asked } = probes(served(40), { ...served(5), version: "v2" });
    const result = await checkKeyVault(
      fake,
      { keyVaultName: "kv1", keyVaultCertificateName: "web-cert", certificateName: "web" },
      { settings: SETTINGS, now: () => NOW },
    );
    expect(asked.vault).toEqual(["kv1/web-cert"]);
    expect(result).toMatchObject({
      domain: "kv1/web-cert",
      source: "keyvault",
      status: "expiring",
      critical: true,
    });
  });
});

describe("acceptedRenewals", () => {
  const row = (id: number, outcome: LedgerRecord["outcome"], sent?: Date): LedgerEntry => ({
    etag: "e",
    record: {
      id,
      certificateName: `c${id}`,
      expiryAtRequest: new Date("2025-03-10T00:00:00.000Z"),
      firstRequestedAt: sent,
      lastRequestedAt: sent,
      outcome,
      attempts: 1,
      detail: undefined,
    },
  });

  const logger = () => {
    const warnings: string[] = [];
    return { warnings, log: { info() {}, error() {}, warn: (m: string) => warnings.push(m) } };
  };

  it("none when the ledger is off", async () => {
    const { log, warnings } = logger();
    const ledger = {
      kind: "none" as const,
      read: async () => {
        throw new Error("not to be read");
      },
    };
    expect((await acceptedRenewals(ledger, log, [record("a", { id: 1 })])).size).toBe(0);
    expect(warnings).toEqual([]);
  });

  it("the renewals the ledger holds as accepted and sent, by certificate name", async () => {
    const sent = new Date("2025-03-01T10:00:00.000Z");
    const rows = new Map<number, LedgerEntry>([
      [1, row(1, "renewal-scheduled", sent)],
      [2, row(2, "stuck", sent)],
      [3, row(3, "failed", sent)],
      [4, row(4, "answer-unknown", sent)],
      [5, row(5, "renewal-scheduled")],
    ]);
    const ledger = { kind: "table" as const, read: async (id: number) => rows.get(id) };
    const { log, warnings } = logger();
    const records = [1, 2, 3, 4, 5, 6].map((id) => record(`c${id}`, { id }));
    const renewals = await acceptedRenewals(ledger, log, [...records, record("no-id")]);
    expect([...renewals.keys()].sort()).toEqual(["c1", "c2"]);
    expect(renewals.get("c1")).toEqual({
      acceptedAt: sent,
      expiryAtRequest: new Date("2025-03-10T00:00:00.000Z"),
    });
    expect(warnings).toEqual([]);
  });

  it("a ledger that cannot be read is one warning, counting the certificates", async () => {
    const ledger = {
      kind: "table" as const,
      read: async (id: number) => {
        if (id === 1)
          throw new ValidationError("ledger row", [{ name: "outcome", message: "bad" }]);
        throw new Error("Bearer abc.def-ghi refused");
      },
    };
    const { log, warnings } = logger();
    const renewals = await acceptedRenewals(ledger, log, [
      record("one", { id: 1 }),
      record("two", { id: 2 }),
    ]);
    expect(renewals.size).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^certsched could not read the renewal ledger for 2 certificate\(s\), so a renewal in flight shows as its served certificate, not pending or not-landed: /,
    );
    expect(warnings[0]).not.toContain("abc.def-ghi");
  });

  it("a row that fails validation is named by its certificate", async () => {
    const ledger = {
      kind: "table" as const,
      read: async () => {
        throw new ValidationError("ledger row", [{ name: "outcome", message: "bad" }]);
      },
    };
    const { log, warnings } = logger();
    await acceptedRenewals(ledger, log, [record("one", { id: 1 })]);
    expect(warnings[0]?.endsWith(": one: Invalid ledger row: outcome: bad")).toBe(true);
  });
});

describe("runCheck", () => {
  const none = new Map<string, AcceptedRenewal>();

  it("an unverifiable check is its result, named by its first owner", async () => {
    const { fake, asked } = probes(served(40));
    const check: Check = {
      kind: "unverifiable",
      domain: "dns.contoso.com",
      detail: "why",
      owners: [record("dns")],
    };
    expect(await runCheck(check, ports(fake), SETTINGS, none, {})).toEqual({
      domain: "dns.contoso.com",
      certificateName: "dns",
      source: "tls",
      status: "unverifiable",
      detail: "why",
    });
    expect(asked.tls).toEqual([]);
  });

  it("a TLS check probes with the settings and publicOnly, and judges", async () => {
    const { fake, asked } = probes(served(40));
    const check: Check = {
      kind: "tls",
      endpoint: endpointOf("www.contoso.com"),
      owners: [record("web")],
      publicOnly: true,
    };
    const result = await runCheck(check, ports(fake), SETTINGS, none, {});
    expect(asked.tls).toEqual([{ connectTo: [], timeoutMs: 5_000, publicOnly: true }]);
    expect(result).toMatchObject({
      domain: "www.contoso.com",
      certificateName: "web",
      source: "tls",
      status: "ok",
      daysLeft: 40,
    });
  });

  it("a watched endpoint's result carries no certificate name; not public-only", async () => {
    const { fake, asked } = probes(served(40));
    const check: Check = {
      kind: "tls",
      endpoint: endpointOf("127.0.0.1:8443"),
      owners: [record("watch:127.0.0.1:8443")],
      publicOnly: false,
    };
    const result = await runCheck(check, ports(fake), SETTINGS, none, {});
    expect("certificateName" in result).toBe(false);
    expect(asked.tls[0]?.publicOnly).toBeUndefined();
  });

  it("a probe refused for a non-public address is unverifiable, never a finding", async () => {
    const { fake } = probes({
      reached: false,
      connectedTo: "internal.contoso.com:443",
      step: "REFUSED",
      code: "ERR_CERTSCHED_NOT_PUBLIC",
      message: "not public",
    });
    const check: Check = {
      kind: "tls",
      endpoint: endpointOf("internal.contoso.com"),
      owners: [record("web")],
      publicOnly: true,
    };
    expect(await runCheck(check, ports(fake), SETTINGS, none, {})).toEqual({
      domain: "internal.contoso.com",
      certificateName: "web",
      source: "tls",
      status: "unverifiable",
      detail: `not probed: internal.contoso.com resolves to an address that is not public (loopback, private, link-local or unspecified): ${SERVICE_NAME_RULE}`,
    });
  });

  it("judges against the latest renewal any owner had accepted", async () => {
    const { fake } = probes(served(40));
    const expiryAtRequest = certificate(40).notAfter;
    const renewals = new Map<string, AcceptedRenewal>([
      ["old", { acceptedAt: new Date(NOW.getTime() - 5 * HOUR_MS), expiryAtRequest }],
      ["new", { acceptedAt: new Date(NOW.getTime() - HOUR_MS), expiryAtRequest }],
    ]);
    const check: Check = {
      kind: "tls",
      endpoint: endpointOf("www.contoso.com"),
      owners: [record("old"), record("new")],
      publicOnly: true,
    };
    // Within the window of the later acceptance: pending, not not-landed.
    expect((await runCheck(check, ports(fake), SETTINGS, renewals, {})).status).toBe("pending");
    const reversed: Check = { ...check, owners: [record("new"), record("old")] };
    expect((await runCheck(reversed, ports(fake), SETTINGS, renewals, {})).status).toBe("pending");
  });

  it("a vault check reads the owner's vault certificate", async () => {
    const { fake, asked } = probes(served(40));
    const check: Check = {
      kind: "vault",
      owners: [record("web", { keyVaultName: "kv1", keyVaultCertificateName: "web-cert" })],
    };
    const result = await runCheck(check, ports(fake), SETTINGS, none, {});
    expect(asked.vault).toEqual(["kv1/web-cert"]);
    expect(result).toMatchObject({
      domain: "kv1/web-cert",
      certificateName: "web",
      source: "keyvault",
      status: "ok",
    });
  });
});

describe("brokenCheck", () => {
  const boom = new Error("Bearer abc.def-ghi\nbroke");

  it("the certificate is unreachable, with why, redacted and escaped", () => {
    const check: Check = {
      kind: "tls",
      endpoint: endpointOf("www.contoso.com:8443"),
      owners: [record("web")],
      publicOnly: true,
    };
    const result = brokenCheck(check, boom);
    expect(result).toMatchObject({
      domain: "www.contoso.com:8443",
      certificateName: "web",
      source: "tls",
      status: "unreachable",
    });
    expect(
      result.detail.startsWith(`certsched could not read its certificate: Bearer ${REDACTED}`),
    ).toBe(true);
    expect(result.detail).not.toContain("\n");
  });

  it("a vault check is named vault/certificate, the certificate's name when the vault's is unset", () => {
    const vault = (extra: Partial<InventoryRecord>): Check => ({
      kind: "vault",
      owners: [record("web", { keyVaultName: "kv1", ...extra })],
    });
    expect(brokenCheck(vault({ keyVaultCertificateName: "web-cert" }), boom)).toMatchObject({
      domain: "kv1/web-cert",
      source: "keyvault",
    });
    expect(brokenCheck(vault({}), boom).domain).toBe("kv1/web");
    expect(brokenCheck(vault({ keyVaultCertificateName: "" }), boom).domain).toBe("kv1/web");
  });

  it("an unverifiable check keeps its domain; a thrown non-error is said", () => {
    const check: Check = { kind: "unverifiable", domain: "d", detail: "x", owners: [] };
    expect(brokenCheck(check, "oops")).toEqual({
      domain: "d",
      source: "tls",
      status: "unreachable",
      detail: "certsched could not read its certificate: oops",
    });
  });
});
