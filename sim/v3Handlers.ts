import { KEY_VAULT_TARGET } from "./certificate.js";
import { toCertificateRecord } from "./format.js";
import { json, type SimResponse, text } from "./response.js";
import {
  checkToken,
  type Parsed,
  parseJsonObject,
  refuse,
  type ServiceCall,
  type ServiceContext,
} from "./serviceContext.js";
import { NAME_NOT_DEFINED, validateCreateRequest } from "./validateCreate.js";

/** POST .../schedule/create (spec 4.1). */
export function handleCreate(ctx: ServiceContext, call: ServiceCall): SimResponse {
  const parsed = authorizeAndParse(ctx, call);
  if (!parsed.ok) return parsed.response;
  const validation = validateCreateRequest(parsed.value);
  if (!validation.ok) return text(400, validation.message);
  const request = validation.request;
  const refused =
    checkToken(ctx, "accessToken", request.accessToken, "management") ??
    (request.target === KEY_VAULT_TARGET
      ? checkToken(ctx, "accessTokenKeyVault", request.accessTokenKeyVault, "vault")
      : undefined);
  if (refused) return refused;
  ctx.store.scheduleCreate(
    {
      certificateName: request.certificateName,
      rootDomain: request.rootDomain,
      email: request.email,
      challengeType: request.challengeType,
      target: request.target,
      cloudSubscriptionId: request.cloudSubscriptionId,
      dnsZoneResourceGroup: request.dnsZoneResourceGroup ?? null,
      keyVaultName: request.keyVaultName ?? null,
    },
    ctx.now,
  );
  return text(200, `Certificate ${request.certificateName} is scheduled for creation.`);
}

/** POST .../schedule/renew (spec 4.2). */
export function handleRenew(ctx: ServiceContext, call: ServiceCall): SimResponse {
  const parsed = authorizeAndParse(ctx, call);
  if (!parsed.ok) return parsed.response;
  const { certificateName: name, accessToken, accessTokenKeyVault } = parsed.value;
  if (typeof name !== "string" || name === "") return text(400, NAME_NOT_DEFINED);
  if (accessToken === undefined || accessToken === null) {
    return text(400, "accessToken is required");
  }
  const refused = checkToken(ctx, "accessToken", accessToken, "management");
  if (refused) return refused;
  const cert = ctx.store.byName(name);
  if (!cert) return text(400, `Certificate ${name} not found`);
  // The vendor's renewal function sends the vault token with a key-vault certificate's renewal
  // (spec 2.2 shows two fields, so its absence is accepted). When sent for such a certificate it
  // must be a valid vault token: installing into the vault would fail with a bad one.
  if (accessTokenKeyVault !== undefined && cert.target === KEY_VAULT_TARGET) {
    const refusedVault = checkToken(ctx, "accessTokenKeyVault", accessTokenKeyVault, "vault");
    if (refusedVault) return refusedVault;
  }
  if (cert.refuseRenewal !== undefined) return text(400, cert.refuseRenewal);
  ctx.store.scheduleRenewal(cert, ctx.now);
  return text(200, `Certificate ${name} is scheduled for update.`);
}

/**
 * GET .../get/certificatename/{certificateName}: Get Certificate. Not shown by the spec; as the
 * vendor's 8.0 client calls it: the API key as Bearer, no body, the record as JSON, and an
 * unknown name a 4xx in plain text.
 */
export function handleGet(ctx: ServiceContext, call: ServiceCall): SimResponse {
  const refused = authorize(ctx, call);
  if (refused) return refused;
  const name = call.name ?? "";
  const cert = ctx.store.byName(name);
  if (!cert) return text(404, `Certificate ${name} not found`);
  return json(200, toCertificateRecord(cert));
}

// Spec 5.1: the API key as a Bearer token. The spec lists 401 for public operations only; we
// refuse a missing or wrong key on v3 with 401 too, as any keyed API would.
function authorizeAndParse(
  ctx: ServiceContext,
  call: ServiceCall,
): Parsed<Record<string, unknown>> {
  const refused = authorize(ctx, call);
  return refused ? refuse(refused) : parseJsonObject(call);
}

function authorize(ctx: ServiceContext, call: ServiceCall): SimResponse | undefined {
  if (call.headers.authorization !== `Bearer ${ctx.options.apiKey}`) {
    return text(401, "Unauthorized: invalid API key");
  }
  if (call.pathValue !== ctx.options.subscription) {
    return text(401, "Unauthorized: unknown subscription");
  }
  return undefined;
}
