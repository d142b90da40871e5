import { RENEWAL_WINDOW_MS } from "./certificate.js";
import { toCertificateRecord } from "./format.js";
import { empty, json, type SimResponse, text } from "./response.js";
import {
  checkToken,
  type Parsed,
  parseJsonObject,
  refuse,
  type ServiceCall,
  type ServiceContext,
} from "./serviceContext.js";

/** POST .../public/certificate/renew/getlist (spec 4.3). */
export function handleList(ctx: ServiceContext, call: ServiceCall): SimResponse {
  const parsed = authorizeAndParse(ctx, call);
  if (!parsed.ok) return parsed.response;
  const limit = new Date(ctx.now.getTime() + RENEWAL_WINDOW_MS);
  const due = ctx.store.expiringBefore(limit);
  // Spec 4.3: 404 when nothing matches; the body is not stated, so none is sent.
  if (due.length === 0) return empty(404);
  return json(200, due.map(toCertificateRecord));
}

/** POST .../public/certificate/renew (spec 4.4). */
export function handlePublicRenew(ctx: ServiceContext, call: ServiceCall): SimResponse {
  const parsed = authorizeAndParse(ctx, call);
  if (!parsed.ok) return parsed.response;
  const certificate = parsed.value.certificate;
  if (typeof certificate !== "object" || certificate === null || Array.isArray(certificate)) {
    return text(400, "certificate is required");
  }
  const { id, certificateName } = certificate as Record<string, unknown>;
  if (typeof id !== "number" || !Number.isInteger(id)) {
    return text(400, "certificate.id must be an integer");
  }
  const cert = ctx.store.byId(id);
  if (!cert) return text(400, `Certificate with id ${id} not found`);
  // A name that contradicts the id points at a client bug; the real service's reaction is unknown.
  if (certificateName !== undefined && certificateName !== cert.certificateName) {
    return text(400, `Certificate with id ${id} is not named ${String(certificateName)}`);
  }
  if (cert.refuseRenewal !== undefined) return text(400, cert.refuseRenewal);
  ctx.store.scheduleRenewal(cert, ctx.now);
  return text(200, `Certificate ${cert.certificateName} is scheduled for renewal.`);
}

/** POST .../public/certificate/test (spec 4.5). */
export function handleTest(ctx: ServiceContext, call: ServiceCall): SimResponse {
  const parsed = authorizeAndParse(ctx, call);
  if (!parsed.ok) return parsed.response;
  return text(200, "Connection successful.");
}

// Spec 5.5: both cloud tokens in the body and the subscription id in the path. A management
// token in an Authorization header is tolerated but never required (spec 5.7 leaves it open).
function authorizeAndParse(
  ctx: ServiceContext,
  call: ServiceCall,
): Parsed<Record<string, unknown>> {
  if (call.pathValue !== ctx.options.subscriptionId) {
    return refuse(text(401, "Authorization failed: unknown subscription id"));
  }
  const parsed = parseJsonObject(call);
  if (!parsed.ok) return parsed;
  const refused =
    checkToken(ctx, "accessToken", parsed.value.accessToken, "management") ??
    checkToken(ctx, "accessTokenKeyVault", parsed.value.accessTokenKeyVault, "vault");
  return refused ? refuse(refused) : parsed;
}
