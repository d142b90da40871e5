import { randomBytes } from "node:crypto";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import type { CredentialLike } from "../../../../shared/adapters/identity/managedIdentity.js";
import { INSTRUMENTS } from "../../../../shared/adapters/telemetry/otelTelemetry.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { type AccountPorts, createAccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { Logger } from "../../../../shared/lib/log.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type SeedCertificate, type Simulator, startSimulator } from "../../../../sim/index.js";
import { histogramCounts, inMemoryTelemetry } from "../../../support/telemetry.js";

/**
 * CERTSCHED_CLOUD_CREDENTIAL=managed-identity: the two cloud tokens come from the app's own
 * identity (an @azure/identity credential) instead of the client-credentials flow. The
 * simulator only honours tokens it issued, so the stand-in identity gets real ones from the
 * simulator's token endpoint, as Entra would issue them to the managed identity.
 */

const NOW = new Date("2026-03-01T03:00:00Z");
const now = () => NOW;
const DAY_MS = 86_400_000;

/** A credential that fetches simulator tokens, and records every scope it was asked for. */
function simIdentity(sim: Simulator): CredentialLike & { scopes: string[]; fail?: Error } {
  const identity = {
    scopes: [] as string[],
    fail: undefined as Error | undefined,
    async getToken(scope: string) {
      identity.scopes.push(scope);
      if (identity.fail) throw identity.fail;
      const resource = scope.replace(/\/\.default$/, "");
      const res = await request(`${sim.tokenUrl}/${sim.options.tenantId}/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: sim.options.clientId,
          client_secret: sim.options.clientSecret,
          resource,
        }).toString(),
      });
      const body = (await res.body.json()) as { access_token: string; expires_on: string };
      if (res.statusCode !== 200) throw new Error(`sim refused: ${JSON.stringify(body)}`);
      return { token: body.access_token, expiresOnTimestamp: Number(body.expires_on) * 1000 };
    },
  };
  return identity;
}

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    error: (m) => lines.push(m),
  };
}

/** The settings of a customer who grants the app's identity access: no tenant, client or secret. */
function managedIdentitySettings(sim: Simulator): Record<string, string> {
  return {
    CERTSCHED_BASE_URL: sim.baseUrl,
    CERTSCHED_SUBSCRIPTION: sim.options.subscription,
    CERTSCHED_SUBSCRIPTION_ID: sim.options.subscriptionId,
    CERTSCHED_API_KEY: sim.options.apiKey,
    CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
  };
}

function dueCertificates(n: number): SeedCertificate[] {
  return Array.from({ length: n }, (_, i) => ({
    certificateName: `site-${String(i).padStart(2, "0")}-contoso-com`,
    rootDomain: "contoso.com",
    expiryDate: new Date(NOW.getTime() + ((i % 19) + 1) * DAY_MS),
  }));
}

describe("managed-identity cloud tokens", () => {
  let sim: Simulator;
  let runtime: AccountPorts | undefined;

  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    await sim.close();
  });

  async function start(certificates: SeedCertificate[]) {
    sim = await startSimulator({
      now,
      certificates,
      apiKey: `api-key-${randomBytes(12).toString("hex")}`,
      clientSecret: `client-secret-${randomBytes(12).toString("hex")}`,
    });
    const identity = simIdentity(sim);
    const settings = loadSettings(managedIdentitySettings(sim));
    return { identity, settings };
  }

  it("needs no tenant, client id or client secret", async () => {
    const { settings } = await start([]);
    expect(settings.cloudCredential).toBe("managed-identity");
    expect(settings.tenantId).toBeUndefined();
    expect(settings.clientId).toBeUndefined();
    expect(settings.clientSecret).toBeUndefined();
    // The default mode still asks for them, naming each.
    expect(() =>
      loadSettings({
        ...managedIdentitySettings(sim),
        CERTSCHED_CLOUD_CREDENTIAL: "client-secret",
      }),
    ).toThrow(/CERTSCHED_TENANT_ID[\s\S]*CERTSCHED_CLIENT_ID[\s\S]*CERTSCHED_CLIENT_SECRET/);
  });

  it("a sweep of 30 due certificates asks the identity for exactly the 2 scopes, once each", async () => {
    const { identity, settings } = await start(dueCertificates(30));
    runtime = createAccountPorts(settings, { now, credential: identity, ledger: memoryLedger() });
    const log = capture();
    const summary = await sweep(runtime, log);

    expect(summary.failed).toBe(false);
    expect(summary.counts).toMatchObject({ due: 30, "renewal-scheduled": 30 });
    expect(sim.requestsFor("publicRenew")).toHaveLength(30);
    expect(identity.scopes.sort()).toEqual([
      "https://management.core.windows.net//.default",
      "https://vault.azure.net/.default",
    ]);
    // Only the identity talked to the token endpoint: certsched sent no client secret of its own.
    expect(sim.requestsFor("token")).toHaveLength(2);
    expect(runtime.tokens.kind).toBe("managed-identity");

    // The next sweep reuses both tokens while they are valid.
    await sweep(runtime, log);
    expect(identity.scopes).toHaveLength(2);

    const texts = log.lines.join("\n");
    for (const secret of [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()]) {
      expect(texts).not.toContain(secret);
    }
  });

  it("times the identity's token requests like any other", async () => {
    const { identity, settings } = await start(dueCertificates(3));
    const otel = inMemoryTelemetry(now);
    runtime = createAccountPorts(settings, {
      now,
      credential: identity,
      ledger: memoryLedger(),
      telemetry: otel.telemetry,
    });
    await sweep(runtime, capture());
    expect(histogramCounts(otel.exported().get(INSTRUMENTS.tokenDuration))).toEqual([
      { status: "200", count: 2 },
    ]);
    await otel.close();
  });

  it("an identity that cannot get a token fails the sweep with a clear reason", async () => {
    const { identity, settings } = await start(dueCertificates(3));
    identity.fail = new Error(
      "ManagedIdentityCredential: no managed identity endpoint found.\nDetails: IMDS unreachable",
    );
    runtime = createAccountPorts(settings, { now, credential: identity, ledger: memoryLedger() });
    const summary = await sweep(runtime, capture());
    expect(summary.failed).toBe(true);
    // First line only: the identity library's details run over several.
    expect(summary.listError).toMatch(
      /^Managed identity could not get a token for https:\/\/(management\.core\.windows\.net\/|vault\.azure\.net): ManagedIdentityCredential: no managed identity endpoint found\.$/,
    );
    expect(sim.requestsFor("list")).toEqual([]);
  });
});
