import { clientCredentialsSource } from "../shared/adapters/identity/clientCredentials.js";
import { TokenCache } from "../shared/adapters/identity/tokenCache.js";
import { ServiceClient } from "../shared/adapters/service/serviceClient.js";
import type { Settings } from "../shared/core/settings.js";
import { HttpClient } from "../shared/lib/http/httpClient.js";

/** Timings of one baseline run. */
export interface BaselineRun {
  /** The list call, tokens included. */
  readonly listMs: number;
  /** Each renewal, its two token requests included, in order. */
  readonly renewMs: readonly number[];
  /** Certificates the list returned (renewMs may cover only the first ones). */
  readonly listed: number;
  /** From the first token request to the last renewal's answer. */
  readonly totalMs: number;
}

/**
 * What the service's reference client does: a fresh token pair for every call and one renewal
 * at a time, so 2 + 2N token requests for N certificates. Built from the real pieces (HttpClient,
 * client-credentials flow, ServiceClient) with a new TokenCache per call, so the only difference
 * from a sweep is the token economy and the concurrency. `limit` renews only the first ones.
 */
export async function sequentialBaseline(settings: Settings, limit?: number): Promise<BaselineRun> {
  const http = new HttpClient({ timeoutMs: settings.httpTimeoutMs });
  const clientSecret = settings.clientSecret ?? "";
  const apiKey = settings.apiKey ?? "";
  const source = clientCredentialsSource({
    tokenUrl: settings.tokenUrl,
    tenantId: settings.tenantId ?? "",
    clientId: settings.clientId ?? "",
    withClientSecret: (request) => request(clientSecret),
    http,
  });
  const freshClient = () =>
    new ServiceClient({
      settings,
      http,
      tokens: new TokenCache(source),
      apiKey: async () => apiKey,
    });
  try {
    const started = performance.now();
    const { certificates } = await freshClient().listDue();
    const listMs = performance.now() - started;
    const renewMs: number[] = [];
    for (const certificate of certificates.slice(0, limit ?? certificates.length)) {
      const t = performance.now();
      await freshClient().renewListed(certificate);
      renewMs.push(performance.now() - t);
    }
    return { listMs, renewMs, listed: certificates.length, totalMs: performance.now() - started };
  } finally {
    await http.close();
  }
}
