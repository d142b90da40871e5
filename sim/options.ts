import type { SeedCertificate } from "./certificate.js";
import type { HostingOptions } from "./hosting/hosting.js";
import type { RateLimitOptions } from "./rateLimit.js";

/** Options of {@link startSimulator}. Every field is optional; defaults are listed per field. */
export interface SimulatorOptions {
  /** API key the v3 operations expect as `Authorization: Bearer <apiKey>`. Default "sim-api-key". */
  apiKey?: string;
  /** The {subscription} path value of the v3 operations. Default "sim-subscription". */
  subscription?: string;
  /** The {subscriptionid} path value of the public operations. Default "1001". */
  subscriptionId?: string;
  /** Tenant (directory) id the token endpoint knows. Default "sim-tenant". */
  tenantId?: string;
  /** Client (application) id the token endpoint knows. Default "sim-client". */
  clientId?: string;
  /** Client secret the token endpoint expects. Default "sim-client-secret". */
  clientSecret?: string;
  /** Resource identifier of resource management. Default "https://management.core.windows.net/". */
  managementResource?: string;
  /** Resource identifier of the key vault. Default "https://vault.azure.net". */
  vaultResource?: string;
  /** Lifetime of issued tokens in seconds (expires_in). Default 3599. */
  tokenLifetimeSeconds?: number;
  /** Milliseconds (sim clock) after a create or renew call at which the action completes. Default 0. */
  completionDelayMs?: number;
  /** Milliseconds (real time) added to every service response; not to token responses. Default 0. */
  latencyMs?: number;
  /** The sim clock: scheduling, the 20-day window and token expiry all read it. Default `new Date()`. */
  now?: () => Date;
  /** Certificates present from the start. Default none. */
  certificates?: SeedCertificate[];
  /** Interface to listen on. Default "127.0.0.1". */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * Starts the hosting side too: a TLS endpoint on `host` serving each App Service
   * certificate for its rootDomain, and a Key Vault holding each Key Vault certificate
   * (sim/hosting/hosting.ts, sim/hosting/vault.ts). Default off.
   */
  hosting?: HostingOptions;
  /**
   * A busy service (sim/rateLimit.ts): above `capacity` service requests in flight, each one is
   * answered 429 with Retry-After at once. Default none.
   */
  rateLimit?: RateLimitOptions;
}

/** The options after defaults, minus the clock and the seed certificates. */
export interface ResolvedSimulatorOptions {
  apiKey: string;
  subscription: string;
  subscriptionId: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  managementResource: string;
  vaultResource: string;
  tokenLifetimeSeconds: number;
  completionDelayMs: number;
  latencyMs: number;
  host: string;
  port: number;
}

export function resolveOptions(options: SimulatorOptions): ResolvedSimulatorOptions {
  const resolved: ResolvedSimulatorOptions = {
    apiKey: options.apiKey ?? "sim-api-key",
    subscription: options.subscription ?? "sim-subscription",
    subscriptionId: options.subscriptionId ?? "1001",
    tenantId: options.tenantId ?? "sim-tenant",
    clientId: options.clientId ?? "sim-client",
    clientSecret: options.clientSecret ?? "sim-client-secret",
    managementResource: options.managementResource ?? "https://management.core.windows.net/",
    vaultResource: options.vaultResource ?? "https://vault.azure.net",
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3599,
    completionDelayMs: options.completionDelayMs ?? 0,
    latencyMs: options.latencyMs ?? 0,
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
  };
  requireRange("tokenLifetimeSeconds", resolved.tokenLifetimeSeconds, 1);
  requireRange("completionDelayMs", resolved.completionDelayMs, 0);
  requireRange("latencyMs", resolved.latencyMs, 0);
  requireRange("port", resolved.port, 0, 65535);
  return resolved;
}

function requireRange(
  name: string,
  value: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): void {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(
      `Simulator option ${name} must be a number in ${min}..${max}, got ${value}`,
    );
  }
}
