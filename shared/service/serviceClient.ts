import type { UpstreamName } from "../errors.js";
import type { HttpClient } from "../http/httpClient.js";
import {
  CREATE_ONLY_WHEN_REFUSED,
  RENEW,
  REPEATABLE,
  type RetryPolicy,
} from "../http/retryPolicy.js";
import { redactValue } from "../redact.js";
import type { CreateCertificateInput, CreateCertificateRequest } from "../schemas/createRequest.js";
import type { CertificateRef } from "../schemas/records.js";
import { requireSubscription, requireSubscriptionId, type Settings } from "../settings.js";
import type { TokenCache } from "../tokens/tokenCache.js";
import {
  type BuiltRequest,
  buildCreateRequest,
  buildListRequest,
  buildPublicRenewRequest,
  buildRenewRequest,
  buildTestRequest,
  type CloudTokenPair,
} from "./requests.js";
import { type DueList, dueList, plainText } from "./responses.js";

export interface ServiceClientDeps {
  readonly settings: Pick<
    Settings,
    | "baseUrl"
    | "publicBaseUrl"
    | "subscription"
    | "subscriptionId"
    | "managementResource"
    | "vaultResource"
  >;
  readonly http: HttpClient;
  readonly tokens: TokenCache;
  /** The service API key, from a direct setting or Key Vault. */
  readonly apiKey: () => Promise<string>;
}

/**
 * One method per operation of the interface (spec 4.1-4.5). Callers never hold tokens or the
 * API key: the client obtains and injects them.
 */
export class ServiceClient {
  readonly #deps: ServiceClientDeps;

  constructor(deps: ServiceClientDeps) {
    this.#deps = deps;
  }

  /** 4.1: schedules creation; returns the service's plain-text message. */
  async create(input: CreateCertificateInput): Promise<string> {
    const { settings } = this.#deps;
    const subscription = requireSubscription(settings);
    const management = await this.#deps.tokens.token(settings.managementResource);
    const body: CreateCertificateRequest =
      input.target === "Cloud Key Vault + DNS"
        ? {
            ...input,
            accessToken: management,
            accessTokenKeyVault: await this.#deps.tokens.token(settings.vaultResource),
          }
        : { ...input, accessToken: management };
    const req = buildCreateRequest(settings.baseUrl, subscription, await this.#deps.apiKey(), body);
    const res = await this.#send("create", req, CREATE_ONLY_WHEN_REFUSED);
    // The certificate password is the caller's secret, never registered with redact(): an
    // error text that echoes it back must not carry it into a log line or a response.
    return plainText(
      "create",
      res.status >= 200 && res.status < 300
        ? res
        : { ...res, text: redactValue(res.text, input.password) },
    );
  }

  /** 4.2: schedules renewal by name (v3); returns the service's plain-text message. */
  async renew(certificateName: string): Promise<string> {
    const { settings } = this.#deps;
    const subscription = requireSubscription(settings);
    const management = await this.#deps.tokens.token(settings.managementResource);
    const req = buildRenewRequest(
      settings.baseUrl,
      subscription,
      await this.#deps.apiKey(),
      certificateName,
      management,
    );
    return plainText("renew", await this.#send("renew", req, RENEW));
  }

  /** 4.3: certificates expiring within 20 days; empty when the service answers 404. */
  async listDue(): Promise<DueList> {
    const id = requireSubscriptionId(this.#deps.settings);
    const req = buildListRequest(this.#deps.settings.publicBaseUrl, id, await this.#tokenPair());
    return dueList(await this.#send("list", req, REPEATABLE));
  }

  /** 4.4: schedules renewal of a listed certificate; completes within an hour. */
  async renewListed(certificate: CertificateRef): Promise<string> {
    const id = requireSubscriptionId(this.#deps.settings);
    const req = buildPublicRenewRequest(
      this.#deps.settings.publicBaseUrl,
      id,
      await this.#tokenPair(),
      certificate,
    );
    return plainText("publicRenew", await this.#send("publicRenew", req, RENEW));
  }

  /** 4.5: checks that an authorised connection to the public API works. */
  async test(): Promise<string> {
    const id = requireSubscriptionId(this.#deps.settings);
    const req = buildTestRequest(this.#deps.settings.publicBaseUrl, id, await this.#tokenPair());
    return plainText("test", await this.#send("test", req, REPEATABLE));
  }

  async #tokenPair(): Promise<CloudTokenPair> {
    const { tokens, settings } = this.#deps;
    const [management, vault] = await Promise.all([
      tokens.token(settings.managementResource),
      tokens.token(settings.vaultResource),
    ]);
    return { management, vault };
  }

  #send(upstream: UpstreamName, req: BuiltRequest, policy: RetryPolicy) {
    return this.#deps.http.send({ upstream, ...req, policy });
  }
}
