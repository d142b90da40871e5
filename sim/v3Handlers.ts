import { KEY_VAULT_TARGET } from "./certificate.js";
import { type SimResponse, text } from "./response.js";
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
  const { certificateName: name, accessToken } = parsed.value;
  if (typeof name !== "string" || name === "") return text(400, NAME_NOT_DEFINED);
  if (accessToken === undefined || accessToken === null) {
    return text(400, "accessToken is required");
  }
  const refused = checkToken(ctx, "accessToken", accessToken, "management");
  if (refused) return refused;
  const cert = ctx.store.byName(name);
  if (!cert) return text(400, `Certificate ${name} not found`);
  if (cert.refuseRenewal !== undefined) return text(400, cert.refuseRenewal);
  ctx.store.scheduleRenewal(cert, ctx.now);
  return text(200, `Certificate ${name} is scheduled for update.`);
}

// Spec 5.1: the API key as a Bearer token. The spec lists 401 for public operations only; we
// refuse a missing or wrong key on v3 with 401 too, as any keyed API would.
function authorizeAndParse(
  ctx: ServiceContext,
  call: ServiceCall,
): Parsed<Record<string, unknown>> {
  if (call.headers.authorization !== `Bearer ${ctx.options.apiKey}`) {
    return refuse(text(401, "Unauthorized: invalid API key"));
  }
  if (call.pathValue !== ctx.options.subscription) {
    return refuse(text(401, "Unauthorized: unknown subscription"));
  }
  return parseJsonObject(call);
}
