import type { IncomingHttpHeaders } from "node:http";
import type { IdentityProvider } from "./identity.js";
import type { ResolvedSimulatorOptions } from "./options.js";
import { type SimResponse, text } from "./response.js";
import type { CertificateStore } from "./state.js";

/** What a service handler may read and change. `now` is read once per call from the sim clock. */
export interface ServiceContext {
  options: ResolvedSimulatorOptions;
  store: CertificateStore;
  identity: IdentityProvider;
  now: Date;
}

/** One call as the handlers see it; pathValue is the decoded subscription (or id) segment. */
export interface ServiceCall {
  pathValue: string;
  /** Get Certificate's decoded {certificateName} segment. */
  name?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: SimResponse };

/**
 * Reads a JSON object body. Spec 4: bodies are JSON with Content-Type application/json, so
 * another media type is refused with 415 as an ASP.NET service would; bad JSON is a 400.
 */
export function parseJsonObject(call: ServiceCall): Parsed<Record<string, unknown>> {
  const mediaType = call.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") {
    return refuse(text(415, "Unsupported media type: the body must be application/json"));
  }
  let value: unknown;
  try {
    value = JSON.parse(call.body);
  } catch (error) {
    return refuse(text(400, `Malformed JSON body: ${(error as Error).message}`));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse(text(400, "Malformed request body: a JSON object is expected"));
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** 401 text when a cloud token in `field` is not acceptable for its resource, else undefined. */
export function checkToken(
  ctx: ServiceContext,
  field: string,
  token: unknown,
  audience: "management" | "vault",
): SimResponse | undefined {
  const reason = ctx.identity.verify(token, audience, ctx.now);
  return reason ? text(401, `Authorization failed: ${field} ${reason}`) : undefined;
}

export function refuse(response: SimResponse): { ok: false; response: SimResponse } {
  return { ok: false, response };
}
