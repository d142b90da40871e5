import { buildTokenRequest } from "../../shared/adapters/identity/clientCredentials.js";
import {
  buildListRequest,
  buildPublicRenewRequest,
  buildRenewRequest,
  buildTestRequest,
} from "../../shared/adapters/service/requests.js";
import type { Settings } from "../../shared/core/settings.js";
import type { UpstreamName } from "../../shared/lib/errors.js";
import { redact } from "../../shared/lib/redact/redact.js";

/**
 * How a failure reads for an operator: the service's status and words without the prose around
 * them, plus the setting to check. Presentation only: the messages in logs, the ledger and
 * --json stay as shared/ writes them.
 */

/** "renew certificate failed: the service answered 400: <words>" (shared/adapters/service/responses.ts). */
const ANSWERED =
  /^.*? failed: the service answered (\d{3})( \(the service refused certsched's credentials\))?(?:: ([\s\S]*))?$/;
/** "publicRenew: cannot reach the service (ECONNREFUSED)" (shared/lib/http/httpClient.ts). */
const TRANSPORT = /^(\w+): ((?:cannot reach the service|no answer within the timeout)[\s\S]*)$/;

/** `400: <the service's words>`; other texts unchanged but for an upstream label in front. */
export function shortCause(detail: string): string {
  const answered = ANSWERED.exec(detail);
  if (answered) {
    const [, status, refused, words] = answered;
    if (words) return `${status}: ${words}`;
    return refused ? `${status}: the service refused certsched's credentials` : `${status}`;
  }
  const transport = TRANSPORT.exec(detail);
  return transport?.[2] ?? detail;
}

/** The status in a detail written by statusError, if any. */
export function statusOf(detail: string): number | undefined {
  const status = ANSWERED.exec(detail)?.[1];
  return status === undefined ? undefined : Number(status);
}

export type Where = Pick<
  Settings,
  | "baseUrl"
  | "publicBaseUrl"
  | "subscription"
  | "subscriptionId"
  | "tokenUrl"
  | "tenantId"
  | "clientId"
  | "keyVaultUrl"
  | "cloudCredential"
> & {
  /** The account the failure happened in; with declared accounts, hints name its fields. */
  readonly account?: string;
  readonly accountsDeclared?: boolean;
};

/** Each single-account setting a hint names, and the field of a declared account that holds it. */
const ACCOUNT_FIELD: Readonly<Record<string, string>> = {
  CERTSCHED_BASE_URL: "baseUrl",
  CERTSCHED_PUBLIC_BASE_URL: "publicBaseUrl",
  CERTSCHED_SUBSCRIPTION_ID: "subscriptionId",
  CERTSCHED_SUBSCRIPTION: "subscription",
  CERTSCHED_API_KEY_SECRET_NAME: "apiKeySecret",
  CERTSCHED_API_KEY: "apiKey",
  CERTSCHED_TENANT_ID: "tenantId",
  CERTSCHED_CLIENT_ID: "clientId",
  CERTSCHED_CLIENT_SECRET: "clientSecret",
  CERTSCHED_TOKEN_URL: "tokenUrl",
};
const SETTING = new RegExp(`\\b(${Object.keys(ACCOUNT_FIELD).join("|")})\\b`, "g");

/**
 * A hint as it applies to `where`: with declared accounts the single-account settings are
 * forbidden, so each setting named becomes the account's own field ("account contoso's
 * baseUrl", in CERTSCHED_ACCOUNTS or CERTSCHED_ACCOUNTS_FILE).
 */
function forAccount(hint: string | undefined, where: Where | undefined): string | undefined {
  if (hint === undefined || !where?.accountsDeclared || where.account === undefined) return hint;
  const account = where.account;
  const named = hint.replace(
    SETTING,
    (setting) => `account ${account}'s ${ACCOUNT_FIELD[setting]}`,
  );
  return named === hint
    ? hint
    : `${named} (The accounts: CERTSCHED_ACCOUNTS or CERTSCHED_ACCOUNTS_FILE.)`;
}

const NO_TOKENS = { management: "", vault: "" };

/** The URL an operation calls, as certsched builds it (no secret is ever in a URL). */
export function urlTried(upstream: UpstreamName, where: Where): string | undefined {
  const sub = where.subscription ?? "";
  const id = where.subscriptionId ?? "";
  const ref = { id: 0, certificateName: "", target: "", renewal: "", subscriptionId: 0 };
  const url = (() => {
    switch (upstream) {
      case "list":
        return buildListRequest(where.publicBaseUrl, id, NO_TOKENS).url;
      case "publicRenew":
        return buildPublicRenewRequest(where.publicBaseUrl, id, NO_TOKENS, ref).url;
      case "test":
        return buildTestRequest(where.publicBaseUrl, id, NO_TOKENS).url;
      case "renew":
        return buildRenewRequest(where.baseUrl, sub, "", "", "").url;
      case "create":
        // 4.1 and 4.2 share the path up to the action; create's builder needs a whole request.
        return buildRenewRequest(where.baseUrl, sub, "", "", "").url.replace(/renew$/, "create");
      case "token":
        return where.cloudCredential === "client-secret"
          ? buildTokenRequest(
              { tokenUrl: where.tokenUrl, tenantId: where.tenantId ?? "", clientId: "" },
              "",
              "",
            ).url
          : undefined;
      case "keyVault":
        return where.keyVaultUrl;
      default:
        return undefined;
    }
  })();
  // URLs carry no secret by construction; redact anyway, it costs nothing.
  return url === undefined ? undefined : redact(url);
}

/** What an operator needs to know beside a failure: the URL tried, or the setting to check. */
export interface FailureFacts {
  readonly upstream: UpstreamName | undefined;
  readonly code: string | undefined;
  readonly status: number | undefined;
  /** The failure's message or detail (already redacted). */
  readonly text: string;
}

/** Operations authorised by the API key (the v3 interface, and Get Certificate). */
const V3: ReadonlySet<string> = new Set(["create", "renew", "get"]);

/** The line that says where to look, or undefined when the message says it all. */
export function whereToLook(facts: FailureFacts, where: Where | undefined): string | undefined {
  return forAccount(settingToCheck(facts, where), where);
}

function settingToCheck(facts: FailureFacts, where: Where | undefined): string | undefined {
  const { upstream, code, status, text } = facts;
  if (code === "UPSTREAM_UNREACHABLE" || code === "UPSTREAM_TIMEOUT") {
    const url = upstream && where ? urlTried(upstream, where) : undefined;
    const setting =
      upstream && V3.has(upstream)
        ? "CERTSCHED_BASE_URL"
        : "CERTSCHED_BASE_URL (or CERTSCHED_PUBLIC_BASE_URL)";
    const timeout =
      code === "UPSTREAM_TIMEOUT" ? "; CERTSCHED_HTTP_TIMEOUT sets the time allowed" : "";
    return `${url ? `Tried ${url}. ` : ""}Check ${setting} and the network${timeout}.`;
  }
  if (code === "TOKEN_UNAVAILABLE" && /unreachable|no answer within the timeout/i.test(text)) {
    const url = where ? urlTried("token", where) : undefined;
    return `${url ? `Tried ${url}. ` : ""}Check CERTSCHED_TOKEN_URL and the network.`;
  }
  // The identity provider's refusals carry their AADSTS meaning already.
  if ((status === 401 || status === 403) && upstream !== "token") {
    if (/unknown subscription id/i.test(text)) {
      return "Check CERTSCHED_SUBSCRIPTION_ID: the service does not know that subscription id (it defaults to CERTSCHED_SUBSCRIPTION).";
    }
    if (/unknown subscription/i.test(text)) {
      return "Check CERTSCHED_SUBSCRIPTION: the service does not know that subscription value.";
    }
    if (upstream && V3.has(upstream)) {
      return where?.keyVaultUrl
        ? "Check CERTSCHED_API_KEY: the service refused the API key (read from Key Vault, secret CERTSCHED_API_KEY_SECRET_NAME, unless CERTSCHED_API_KEY is set)."
        : "Check CERTSCHED_API_KEY: the service refused the API key.";
    }
    return "The service refused the cloud access tokens: check CERTSCHED_TENANT_ID, CERTSCHED_CLIENT_ID and CERTSCHED_CLIENT_SECRET (the app registration and its role).";
  }
  return undefined;
}
