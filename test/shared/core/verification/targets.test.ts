import { describe, expect, it } from "vitest";
import type { ProbeResult, ServedCertificate } from "../../../../shared/core/ports/probes.js";
import { parseEndpoint } from "../../../../shared/core/verification/endpoint.js";
import {
  countStatuses,
  judgeTarget,
  needsAttention,
  type VerifyResult,
  type VerifyTarget,
} from "../../../../shared/core/verification/targets.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const settings = { warnDays: 14, windowMs: 2 * HOUR_MS };

function endpointOf(text: string) {
  const parsed = parseEndpoint(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

const certificate = (daysLeft: number): ServedCertificate => ({
  notBefore: new Date(NOW.getTime() - 60 * DAY_MS),
  notAfter: new Date(NOW.getTime() + daysLeft * DAY_MS),
  issuer: "CN=Test CA",
  subject: "CN=www.contoso.com",
  serial: "0A1B",
  thumbprint: "AB".repeat(32),
  altNames: ["DNS:www.contoso.com"],
});

const served = (daysLeft: number): ProbeResult => ({
  reached: true,
  connectedTo: "www.contoso.com:443",
  certificate: certificate(daysLeft),
  chainProblem: undefined,
  nameProblem: undefined,
});

const target = (extra: Partial<VerifyTarget> = {}): VerifyTarget => ({
  endpoint: endpointOf("www.contoso.com:8443"),
  ...extra,
});

describe("judgeTarget", () => {
  it("an ok result under the endpoint's label and the certificate's name", () => {
    const result = judgeTarget(target({ certificateName: "web" }), served(40), {
      settings,
      now: () => NOW,
    });
    expect(result).toEqual({
      domain: "www.contoso.com:8443",
      certificateName: "web",
      source: "tls",
      status: "ok",
      servedNotAfter: certificate(40).notAfter.toISOString(),
      daysLeft: 40,
      issuer: "CN=Test CA",
      serial: "0A1B",
      thumbprint: "AB".repeat(32),
      detail: "trusted, covers www.contoso.com, 40 days left",
    });
  });

  it("no certificateName key when the target names none; critical only when it is", () => {
    const expiring = judgeTarget(target(), served(10), { settings, now: () => NOW });
    expect(expiring.status).toBe("expiring");
    expect("certificateName" in expiring).toBe(false);
    expect("critical" in expiring).toBe(false);
    const critical = judgeTarget(target(), served(3), { settings, now: () => NOW });
    expect(critical).toMatchObject({ status: "expiring", critical: true, daysLeft: 3 });
  });

  it("reads the clock when judging (after the probe), with the given warn days and window", () => {
    let reads = 0;
    const result = judgeTarget(target(), served(20), {
      settings: { warnDays: 30, windowMs: HOUR_MS },
      now: () => {
        reads += 1;
        return NOW;
      },
    });
    expect(reads).toBe(1);
    expect(result.status).toBe("expiring");
  });

  it("a renewal in flight is pending within the window, not-landed after it", () => {
    const renewal = {
      acceptedAt: new Date(NOW.getTime() - HOUR_MS),
      expiryAtRequest: certificate(40).notAfter,
    };
    expect(judgeTarget(target({ renewal }), served(40), { settings, now: () => NOW }).status).toBe(
      "pending",
    );
    expect(
      judgeTarget(target({ renewal }), served(40), {
        settings: { ...settings, windowMs: HOUR_MS },
        now: () => NOW,
      }).status,
    ).toBe("not-landed");
  });

  it("an unreachable endpoint, with a bounded detail", () => {
    const result = judgeTarget(
      target(),
      {
        reached: false,
        connectedTo: "www.contoso.com:8443",
        step: "TLS",
        code: "ECONNRESET",
        message: "x".repeat(5_000),
      },
      { settings, now: () => NOW },
    );
    expect(result.status).toBe("unreachable");
    expect(result.detail.length).toBeLessThanOrEqual(500);
    expect(result.detail.startsWith("TLS handshake with www.contoso.com:8443")).toBe(true);
  });
});

describe("countStatuses", () => {
  it("counts the statuses that occur, in the contract's order", () => {
    const results = ["ok", "expired", "ok", "unreachable"].map(
      (status) => ({ status }) as VerifyResult,
    );
    const counts = countStatuses(results);
    expect(counts).toEqual({ unreachable: 1, expired: 1, ok: 2 });
    expect(Object.keys(counts)).toEqual(["unreachable", "expired", "ok"]);
    expect(countStatuses([])).toEqual({});
  });
});

describe("needsAttention", () => {
  it.each([
    ["not-landed", undefined, true],
    ["expired", undefined, true],
    ["mismatch", undefined, true],
    ["untrusted", undefined, true],
    ["expiring", undefined, false],
    ["expiring", true, true],
    ["pending", undefined, false],
    ["ok", true, false],
  ] as const)("%s (critical %s): %s", (status, critical, expected) => {
    expect(needsAttention({ status, ...(critical ? { critical } : {}) })).toBe(expected);
  });

  it("unreachable needs a person unless within its grace (no grace by default)", () => {
    expect(needsAttention({ status: "unreachable" })).toBe(true);
    expect(needsAttention({ status: "unreachable" }, false)).toBe(true);
    expect(needsAttention({ status: "unreachable" }, true)).toBe(false);
    expect(needsAttention({ status: "expired" }, true)).toBe(true);
  });
});
