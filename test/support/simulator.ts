import { request } from "undici";
import type { Simulator } from "../../sim/index.js";

export interface Reply {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** POSTs over real loopback HTTP; `json` sets application/json, `form` sets form encoding. */
export async function post(
  url: string,
  init: {
    json?: unknown;
    form?: Record<string, string>;
    body?: string;
    headers?: Record<string, string>;
    method?: "POST" | "GET" | "PUT";
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers["content-type"] ??= "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  }
  const res = await request(url, { method: init.method ?? "POST", headers, body });
  const contentType = res.headers["content-type"];
  return {
    status: res.statusCode,
    contentType: Array.isArray(contentType) ? contentType[0] : contentType,
    text: await res.body.text(),
  };
}

export function tokenEndpoint(sim: Simulator, tenant = sim.options.tenantId): string {
  return `${sim.tokenUrl}/${tenant}/oauth2/token`;
}

export function tokenForm(sim: Simulator, resource: string): Record<string, string> {
  return {
    grant_type: "client_credentials",
    client_id: sim.options.clientId,
    client_secret: sim.options.clientSecret,
    resource,
  };
}

/** A management and a vault token, fetched through the token endpoint like a client would. */
export async function tokens(sim: Simulator): Promise<{ management: string; vault: string }> {
  const fetchToken = async (resource: string) => {
    const reply = await post(tokenEndpoint(sim), { form: tokenForm(sim, resource) });
    if (reply.status !== 200) throw new Error(`token request failed: ${reply.text}`);
    return (JSON.parse(reply.text) as { access_token: string }).access_token;
  };
  return {
    management: await fetchToken(sim.options.managementResource),
    vault: await fetchToken(sim.options.vaultResource),
  };
}

export function v3Url(
  sim: Simulator,
  op: "create" | "renew",
  subscription = sim.options.subscription,
) {
  return `${sim.baseUrl}/prod/v3/ssl/certificate/subscription/${encodeURIComponent(subscription)}/schedule/${op}`;
}

export function publicUrl(
  sim: Simulator,
  op: "renew/getlist" | "renew" | "test",
  subscriptionId = sim.options.subscriptionId,
) {
  return `${sim.publicBaseUrl}/v1/subscription/${encodeURIComponent(subscriptionId)}/public/certificate/${op}`;
}

export function apiKeyHeader(sim: Simulator): Record<string, string> {
  return { authorization: `Bearer ${sim.options.apiKey}` };
}

/** Polls until `condition` holds (a request has arrived, say); the test's timeout bounds it. */
export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
