import type { CreateCertificateRequest } from "../../core/certificate/createRequest.js";
import type {
  CertificateRef,
  CertificateRequest,
  RenewRequest,
  ResourceRequest,
} from "../../core/certificate/records.js";
import type { RequestOperation } from "../../core/quota/requestContext.js";
import type { Settings } from "../../core/settings.js";
import { ConfigError, type UpstreamName, ValidationError } from "../../lib/errors.js";

/**
 * Request building for every operation of the interface, as pure functions to read next to
 * the spec (section 4). Path parameters are always encoded: no value can change the path.
 * Secrets pass through here only into headers and bodies, never into URLs.
 */
export interface BuiltRequest {
  /** Default POST: every operation but Get Certificate. */
  readonly method?: "GET" | "POST";
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface CloudTokenPair {
  /** For {management_resource}; sent as accessToken. */
  readonly management: string;
  /** For {vault_resource}; sent as accessTokenKeyVault. */
  readonly vault: string;
}

const seg = encodeURIComponent;

/** JSON in, text or JSON out; `Authorization: Bearer` only when there is a bearer to send. */
function headersFor(bearer: string | undefined): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "text/plain, application/json",
    ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
  };
}

function v3Url(baseUrl: string, subscription: string, action: "create" | "renew"): string {
  return `${baseUrl}/prod/v3/ssl/certificate/subscription/${seg(subscription)}/schedule/${action}`;
}

function publicUrl(publicBaseUrl: string, subscriptionId: string, rest: string): string {
  return `${publicBaseUrl}/v1/subscription/${seg(subscriptionId)}/public/certificate/${rest}`;
}

/** 4.1: POST {base_url}/prod/v3/ssl/certificate/subscription/{subscription}/schedule/create */
export function buildCreateRequest(
  baseUrl: string,
  subscription: string,
  apiKey: string,
  body: CreateCertificateRequest,
): BuiltRequest {
  return {
    url: v3Url(baseUrl, subscription, "create"),
    headers: headersFor(apiKey),
    body: JSON.stringify(body),
  };
}

/**
 * 4.2: POST {base_url}/prod/v3/ssl/certificate/subscription/{subscription}/schedule/renew.
 * The spec's body has two fields (2.2). The vendor's renewal function and 8.0 docs also send
 * accessTokenKeyVault when the certificate's target is the key vault: `vaultToken` is given
 * exactly then, when the caller knows the target.
 */
export function buildRenewRequest(
  baseUrl: string,
  subscription: string,
  apiKey: string,
  certificateName: string,
  managementToken: string,
  vaultToken?: string,
): BuiltRequest {
  const body: RenewRequest = {
    certificateName,
    accessToken: managementToken,
    ...(vaultToken === undefined ? {} : { accessTokenKeyVault: vaultToken }),
  };
  return {
    url: v3Url(baseUrl, subscription, "renew"),
    headers: headersFor(apiKey),
    body: JSON.stringify(body),
  };
}

/**
 * Get Certificate: GET {base_url}/prod/v3/ssl/certificate/subscription/{subscription}/get/
 * certificatename/{certificateName}, the API key as Bearer, no body. Spec 1 and 4 name the
 * operation without showing it; method, path and authentication are those of the vendor's
 * published 8.0 client and docs. The answer is one certificate record (spec 2.3).
 */
export function buildGetRequest(
  baseUrl: string,
  subscription: string,
  apiKey: string,
  certificateName: string,
): BuiltRequest {
  return {
    method: "GET",
    url: `${baseUrl}/prod/v3/ssl/certificate/subscription/${seg(subscription)}/get/certificatename/${nameSegment(certificateName)}`,
    headers: { accept: "application/json, text/plain", authorization: `Bearer ${apiKey}` },
    body: "",
  };
}

/**
 * The certificate name as Get Certificate's last path segment: the one operation with a caller's
 * value in its path. Encoding cannot protect "." and "..": URL parsers resolve them, and their
 * %2E forms, as dot segments, changing the path. A lone surrogate has no UTF-8 form to encode.
 */
function nameSegment(certificateName: string): string {
  const refuse = (message: string) =>
    new ValidationError("certificate name", [{ name: "certificateName", message }]);
  if (certificateName === "." || certificateName === "..") {
    throw refuse('must not be "." or "..": Get Certificate carries the name in the URL path');
  }
  try {
    return seg(certificateName);
  } catch {
    throw refuse("must be valid Unicode text (it holds a lone surrogate)");
  }
}

function resourceRequest(tokens: CloudTokenPair): ResourceRequest {
  return { accessToken: tokens.management, accessTokenKeyVault: tokens.vault };
}

/*
 * Public operations carry both tokens in the body (2.4, 5.5). Whether they also take an
 * Authorization header is not shown (5.7). The vendor's published 6.0.10 client sends none (its
 * only header names the calling product), and a later client sends the service API key there,
 * only when one is configured. So: no Authorization by default, never a cloud token in a header
 * (proxies log headers), and `gatewayKey` (the API key, CERTSCHED_PUBLIC_AUTH=api-key) as Bearer
 * for a gateway that wants one.
 */

/** 4.3: POST {public_base_url}/v1/subscription/{subscriptionid}/public/certificate/renew/getlist */
export function buildListRequest(
  publicBaseUrl: string,
  subscriptionId: string,
  tokens: CloudTokenPair,
  gatewayKey?: string,
): BuiltRequest {
  const body = resourceRequest(tokens);
  return {
    url: publicUrl(publicBaseUrl, subscriptionId, "renew/getlist"),
    headers: headersFor(gatewayKey),
    body: JSON.stringify(body),
  };
}

/** 4.4: POST {public_base_url}/v1/subscription/{subscriptionid}/public/certificate/renew */
export function buildPublicRenewRequest(
  publicBaseUrl: string,
  subscriptionId: string,
  tokens: CloudTokenPair,
  certificate: CertificateRef,
  gatewayKey?: string,
): BuiltRequest {
  const body: CertificateRequest = {
    ...resourceRequest(tokens),
    certificate: {
      certificateName: certificate.certificateName,
      target: certificate.target,
      renewal: certificate.renewal,
      id: certificate.id,
      subscriptionId: certificate.subscriptionId,
    },
  };
  return {
    url: publicUrl(publicBaseUrl, subscriptionId, "renew"),
    headers: headersFor(gatewayKey),
    body: JSON.stringify(body),
  };
}

/** 4.5: POST {public_base_url}/v1/subscription/{subscriptionid}/public/certificate/test */
export function buildTestRequest(
  publicBaseUrl: string,
  subscriptionId: string,
  tokens: CloudTokenPair,
  gatewayKey?: string,
): BuiltRequest {
  const body = resourceRequest(tokens);
  return {
    url: publicUrl(publicBaseUrl, subscriptionId, "test"),
    headers: headersFor(gatewayKey),
    body: JSON.stringify(body),
  };
}

/** The subscription value for v3 paths, or a ConfigError naming the setting. */
export function requireSubscription(settings: Pick<Settings, "subscription">): string {
  if (settings.subscription) return settings.subscription;
  throw new ConfigError([
    { name: "CERTSCHED_SUBSCRIPTION", message: "is required for create and renew (v3)" },
  ]);
}

/** The subscription id for public paths, or a ConfigError naming the setting. */
export function requireSubscriptionId(settings: Pick<Settings, "subscriptionId">): string {
  if (settings.subscriptionId) return settings.subscriptionId;
  throw new ConfigError([
    {
      name: "CERTSCHED_SUBSCRIPTION_ID",
      message: "is required for list, renew and test (or set CERTSCHED_SUBSCRIPTION)",
    },
  ]);
}

/** The request budget's name of each operation (ServiceRequest.operation). */
export const COUNTED_AS: Readonly<Record<UpstreamName, RequestOperation | undefined>> = {
  list: "list",
  publicRenew: "renew",
  test: "test",
  create: "create",
  renew: "renew-v3",
  get: "get",
  token: undefined,
  keyVault: undefined,
  ari: undefined,
  ledger: undefined,
  webhook: undefined,
  ct: undefined,
};

/** The cloud tokens one call carries: always the management token, the vault token if needed. */
export type CallTokens = { readonly management: string; readonly vault?: string };

/** The two tokens the public operations carry in their body (no vault token: an empty one). */
export function pair(tokens: CallTokens): CloudTokenPair {
  return { management: tokens.management, vault: tokens.vault ?? "" };
}
