import type {
  CreateCertificateInput,
  CreateCertificateRequest,
} from "../../core/certificate/createRequest.js";
import { KEY_VAULT } from "../../core/certificate/fields.js";
import type { CertificateRecord, CertificateRef } from "../../core/certificate/records.js";
import type { RequestLog } from "../../core/ports/requestLog.js";
import type {
  BoundedCallOptions,
  CallOptions,
  DueList,
  RenewOptions,
  SendingOptions,
  ServiceOperations,
} from "../../core/ports/service.js";
import { noneDue } from "../../core/ports/service.js";
import type { Tokens } from "../../core/ports/tokens.js";
import { SCHEDULE_TIMEOUT_MAX_MS } from "../../core/renewal/callBudget.js";
import type { Settings } from "../../core/settings.js";
import { ConfigError, UpstreamError, type UpstreamName } from "../../lib/errors.js";
import type { InboundResponse } from "../../lib/http/attempt.js";
import type { HttpClient } from "../../lib/http/httpClient.js";
import {
  CREATE_ONLY_WHEN_REFUSED,
  RENEW,
  REPEATABLE,
  type RetryPolicy,
} from "../../lib/http/retryPolicy.js";
import { redact, redactValue } from "../../lib/redact/redact.js";
import { certificateFound } from "./getCertificate.js";
import {
  type BuiltRequest,
  buildCreateRequest,
  buildGetRequest,
  buildListRequest,
  buildPublicRenewRequest,
  buildRenewRequest,
  buildTestRequest,
  type CallTokens,
  COUNTED_AS,
  pair,
  requireSubscription,
  requireSubscriptionId,
} from "./requests.js";
import { dueList, isHtml, OPERATION_LABEL, plainText, statusError } from "./responses.js";

export interface ServiceClientDeps {
  readonly settings: Pick<
    Settings,
    | "baseUrl"
    | "publicBaseUrl"
    | "subscription"
    | "subscriptionId"
    | "managementResource"
    | "vaultResource"
  > &
    Partial<Pick<Settings, "publicAuth" | "scheduleTimeoutMs" | "httpTimeoutMs">>;
  readonly http: HttpClient;
  readonly tokens: Pick<Tokens, "token" | "refused">;
  /** The service API key, from a direct setting or Key Vault. */
  readonly apiKey: () => Promise<string>;
  /** Where each request sent to the service is counted (the request budget); default none. */
  readonly requests?: RequestLog;
}

/**
 * The schedule operations (v3 create and renew) get their own timeout per attempt
 * (CERTSCHED_SCHEDULE_TIMEOUT) and, retries included, at most SCHEDULE_TIMEOUT_MAX_MS in all: a
 * retry after a 429 starts only if a whole attempt still fits, so the HTTP functions that call
 * them stay under their 230 s front end.
 */
const SCHEDULE_DEADLINE_MS = SCHEDULE_TIMEOUT_MAX_MS;

/**
 * A 2xx confirmation is upstream text like any other: one that quotes the request (a proxy, a
 * gateway, a service echoing its input) would carry the API key or a token to callers, the
 * ledger, webhooks and logs. Cleaned here, where it enters, before anything stores or shows it.
 */
const confirmation = (text: string): string => redact(text);

/**
 * One method per operation of the interface (spec 4.1-4.5). Callers never hold tokens or the
 * API key: the client obtains and injects them.
 */
export class ServiceClient implements ServiceOperations {
  readonly #deps: ServiceClientDeps;

  constructor(deps: ServiceClientDeps) {
    this.#deps = deps;
  }

  /** 4.1: schedules creation; returns the service's plain-text message. */
  async create(input: CreateCertificateInput, options: BoundedCallOptions = {}): Promise<string> {
    const { settings } = this.#deps;
    const subscription = requireSubscription(settings);
    const keyVault = input.target === "Cloud Key Vault + DNS";
    const res = await this.#authorized(
      "create",
      CREATE_ONLY_WHEN_REFUSED,
      keyVault,
      { budget: options.budget, context: options.context },
      async (t) => {
        const body: CreateCertificateRequest = keyVault
          ? { ...input, accessToken: t.management, accessTokenKeyVault: t.vault ?? "" }
          : { ...input, accessToken: t.management };
        return buildCreateRequest(settings.baseUrl, subscription, await this.#deps.apiKey(), body);
      },
    );
    // The certificate password is the caller's secret, never registered with redact(): a text
    // that echoes it back, whatever its status, must not carry it any further. One too short
    // to cut out withholds an error text, but not the confirmation (it may hold it by chance).
    const ok = res.status >= 200 && res.status < 300;
    const text = redactValue(res.text, input.password, ok ? "keep" : "withhold");
    return confirmation(plainText("create", { ...res, text }));
  }

  /** 4.2: schedules renewal by name (v3); returns the service's plain-text message. */
  async renew(certificateName: string, options: RenewOptions = {}): Promise<string> {
    const { settings } = this.#deps;
    const subscription = requireSubscription(settings);
    const keyVault = options.target === KEY_VAULT;
    const res = await this.#authorized("renew", RENEW, keyVault, options, async (t) =>
      buildRenewRequest(
        settings.baseUrl,
        subscription,
        await this.#deps.apiKey(),
        certificateName,
        t.management,
        keyVault ? t.vault : undefined,
      ),
    );
    return confirmation(plainText("renew", res));
  }

  /**
   * Get Certificate: the record of one certificate, by name. The spec names the operation (1, 4)
   * without showing it; the vendor's 8.0 client shows it (see buildGetRequest). It takes the API
   * key only: no cloud token is obtained or sent.
   */
  async get(certificateName: string, options: BoundedCallOptions = {}): Promise<CertificateRecord> {
    const { settings } = this.#deps;
    const subscription = requireSubscription(settings);
    const apiKey = await this.#deps.apiKey();
    const req = buildGetRequest(settings.baseUrl, subscription, apiKey, certificateName);
    return certificateFound(
      certificateName,
      await this.#send("get", req, REPEATABLE, {
        budget: options.budget,
        context: options.context,
      }),
    );
  }

  /**
   * 4.3: certificates expiring within 20 days. A 404 means none only once the connectivity test
   * on the same address answers 200 (one extra call, only then): a mistyped
   * CERTSCHED_PUBLIC_BASE_URL answers 404 too, and must not pass for "nothing due" forever.
   */
  async listDue(options: CallOptions = {}): Promise<DueList> {
    const { settings } = this.#deps;
    const id = requireSubscriptionId(settings);
    const res = await this.#authorized("list", REPEATABLE, true, options, async (t) =>
      buildListRequest(settings.publicBaseUrl, id, pair(t), await this.#gatewayKey()),
    );
    if (res.status !== 404) return dueList(res);
    await this.#confirmListPath(res, options);
    return noneDue();
  }

  /** 4.4: schedules renewal of a listed certificate; completes within an hour. */
  async renewListed(certificate: CertificateRef, options: SendingOptions = {}): Promise<string> {
    const id = requireSubscriptionId(this.#deps.settings);
    const res = await this.#authorized("publicRenew", RENEW, true, options, async (t) =>
      buildPublicRenewRequest(
        this.#deps.settings.publicBaseUrl,
        id,
        pair(t),
        certificate,
        await this.#gatewayKey(),
      ),
    );
    return confirmation(plainText("publicRenew", res));
  }

  /** 4.5: checks that an authorised connection to the public API works. */
  async test(options: CallOptions = {}): Promise<string> {
    const id = requireSubscriptionId(this.#deps.settings);
    const res = await this.#authorized("test", REPEATABLE, true, options, async (t) =>
      buildTestRequest(this.#deps.settings.publicBaseUrl, id, pair(t), await this.#gatewayKey()),
    );
    return confirmation(plainText("test", res));
  }

  /**
   * The list answered 404: believe "nothing due" only if the connectivity test, under the same
   * {public_base_url}, answers 200 (it proves the path reaches the public API). A 404 there too
   * is a wrong address; any other failure leaves the 404 unexplained, and the list fails.
   */
  async #confirmListPath(listed: InboundResponse, options: CallOptions): Promise<void> {
    const base = this.#deps.settings.publicBaseUrl;
    try {
      await this.test(options);
    } catch (error) {
      if (error instanceof UpstreamError && error.upstream === "test" && error.status === 404) {
        throw new ConfigError([
          {
            name: "CERTSCHED_PUBLIC_BASE_URL",
            message: `${base} is not the service's public API: its list and its connectivity test both answered 404 (check the address; by default it is CERTSCHED_BASE_URL followed by /public)`,
          },
        ]);
      }
      const cause = error instanceof Error ? error.message : String(error);
      throw new UpstreamError(
        error instanceof UpstreamError ? error.code : "UPSTREAM_FAILED",
        "list",
        `${OPERATION_LABEL.list} failed: the service answered 404, and the connectivity test that would show the address is right failed: ${cause}`,
        { status: listed.status, cause: error },
      );
    }
    // The path is right, but an HTML page is no answer of the service's (spec 7: plain text).
    if (isHtml(listed)) throw statusError("list", listed);
  }

  /**
   * Sends a call built with the cloud tokens it needs. On 401 the tokens it carried are reported
   * refused to the cache (which drops each at most once per sweep span) and the call is sent
   * once more with what the cache then holds: a token revoked or expired early costs one retry,
   * not a failed run, and a service that refuses every token costs at most two more token
   * requests (docs/performance.md).
   */
  async #authorized(
    upstream: UpstreamName,
    policy: RetryPolicy,
    vault: boolean,
    options: BoundedCallOptions & SendingOptions,
    build: (tokens: CallTokens) => BuiltRequest | Promise<BuiltRequest>,
  ): Promise<InboundResponse> {
    const used = await this.#tokens(vault);
    const res = await this.#send(upstream, await build(used), policy, options);
    if (res.status !== 401 || !this.#refused(used)) return res;
    return this.#send(upstream, await build(await this.#tokens(vault)), policy, options);
  }

  async #tokens(vault: boolean): Promise<CallTokens> {
    const { tokens, settings } = this.#deps;
    if (!vault) return { management: await tokens.token(settings.managementResource) };
    const [management, vaultToken] = await Promise.all([
      tokens.token(settings.managementResource),
      tokens.token(settings.vaultResource),
    ]);
    return { management, vault: vaultToken };
  }

  /** Reports every token the call carried (no short cut: each must be told). */
  #refused(used: CallTokens): boolean {
    const { tokens, settings } = this.#deps;
    const management = tokens.refused(settings.managementResource, used.management);
    const vault = used.vault !== undefined && tokens.refused(settings.vaultResource, used.vault);
    return management || vault;
  }

  /** The API key for the public operations' Authorization, only with CERTSCHED_PUBLIC_AUTH=api-key. */
  async #gatewayKey(): Promise<string | undefined> {
    return this.#deps.settings.publicAuth === "api-key" ? this.#deps.apiKey() : undefined;
  }

  #send(
    upstream: UpstreamName,
    req: BuiltRequest,
    policy: RetryPolicy,
    { budget, sending, context }: BoundedCallOptions & SendingOptions = {},
  ) {
    const { requests, settings } = this.#deps;
    const operation = COUNTED_AS[upstream];
    const schedule = upstream === "create" || upstream === "renew";
    // What is left of the request's time, read as the call starts (a 401's resend included).
    const left = budget === undefined ? undefined : Math.max(1, budget.left());
    const within = (deadlineMs: number) =>
      left === undefined ? deadlineMs : Math.min(deadlineMs, left);
    return this.#deps.http.send({
      upstream,
      ...req,
      policy,
      // A schedule attempt is never cut short (its answer may say it was scheduled): the
      // budget only decides whether a retry after a 429 may start.
      ...(schedule && settings.scheduleTimeoutMs !== undefined
        ? { timeoutMs: settings.scheduleTimeoutMs, deadlineMs: within(SCHEDULE_DEADLINE_MS) }
        : left !== undefined
          ? { timeoutMs: Math.min(settings.httpTimeoutMs ?? left, left), deadlineMs: left }
          : {}),
      ...(requests && operation ? { reserve: () => requests.reserve(operation, context) } : {}),
      ...(sending ? { sending } : {}),
      ...(context?.observer ? { observer: context.observer } : {}),
    });
  }
}
