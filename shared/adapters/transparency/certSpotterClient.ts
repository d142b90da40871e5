import type {
  IssuancePage,
  IssuanceQuery,
  LogWatcher,
  WatcherFailure,
} from "../../core/ports/transparency.js";
import { whenAborted } from "../../lib/abort.js";
import { HttpClient, type HttpClientOptions } from "../../lib/http/httpClient.js";
import type { RetryPolicy } from "../../lib/http/retryPolicy.js";
import { redact, registerSecret } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import {
  DEFAULT_MAX_PAGE_ISSUANCES,
  issuancePageOf,
  transportFailure,
} from "./certSpotterAnswers.js";

/** Longest answer read by default, in bytes: about 16,000 issuances with their names. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface CertSpotterClientOptions {
  /** CERTSCHED_CT_URL: https://api.certspotter.com, or the simulator's loopback address. */
  readonly baseUrl: string;
  /**
   * The API key, read for each request (Key Vault by secret name, or the direct setting);
   * undefined: Cert Spotter is asked without a key (its small anonymous allowance).
   */
  readonly apiKey: () => Promise<string | undefined>;
  /** CERTSCHED_CT_TIMEOUT, ms: one whole request, from sending to the body's last byte. */
  readonly timeoutMs: number;
  /** Longest answer read, in bytes; larger is a bad answer. Default 16 MiB. */
  readonly maxResponseBytes?: number | undefined;
  /** Entries kept from one answer (the rest are asked for after the last kept). Default 1,000. */
  readonly maxPageIssuances?: number | undefined;
  /** A CA certificate (PEM) trusted instead of Node's store: the sandbox only. */
  readonly ca?: string | undefined;
  /** Observer for each finished call (telemetry), reported as upstream "ct". */
  readonly onCall?: HttpClientOptions["onCall"];
  /** The clock for Retry-After dates; default the wall clock. */
  readonly now?: (() => Date) | undefined;
}

/** One attempt: a 429 pauses the watch (the use case), it is not waited out in a loop here. */
const CT_POLICY: RetryPolicy = {
  statuses: [],
  networkErrors: false,
  maxRetries: 0,
  baseDelayMs: 0,
  maxDelayMs: 0,
  maxRetryAfterMs: 0,
};

/**
 * The address of one query: the watched name, with or without its subdomains, wildcards that
 * match it, after the cursor (empty: from the first), with the names, the issuer and the
 * revocation expanded.
 */
export function issuancesUrl(baseUrl: string, query: IssuanceQuery): string {
  const params = new URLSearchParams([
    ["domain", query.name.name],
    ["include_subdomains", String(query.name.subdomains)],
    ["match_wildcards", "true"],
    ["after", query.after ?? ""],
    ["expand", "dns_names"],
    ["expand", "issuer"],
    ["expand", "revocation"],
  ]);
  return `${baseUrl.replace(/\/+$/, "")}/v1/issuances?${params}`;
}

/** The request's headers: the key as a bearer token when there is one. */
export function issuancesHeaders(apiKey: string | undefined): Record<string, string> {
  return {
    accept: "application/json",
    "user-agent": "certsched",
    ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
  };
}

/**
 * The log watcher over Cert Spotter's issuances API, through one keep-alive HttpClient: its
 * timeout, its body bound, no redirect followed, one attempt per query. Never throws.
 */
export function createCertSpotterClient(options: CertSpotterClientOptions): LogWatcher {
  return new CertSpotterClient(options);
}

class CertSpotterClient implements LogWatcher {
  readonly #options: CertSpotterClientOptions;
  readonly #now: () => Date;
  #http: HttpClient | undefined;

  constructor(options: CertSpotterClientOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  readonly issuances = async (
    query: IssuanceQuery,
    signal?: AbortSignal,
  ): Promise<IssuancePage | WatcherFailure> => {
    if (signal?.aborted) return stopped("before asking");
    let apiKey: string | undefined;
    try {
      apiKey = await this.#options.apiKey();
      // Registered on every use, as the service's secrets are: any log line is cleaned of it.
      registerSecret(apiKey);
    } catch (error) {
      return {
        kind: "failed",
        reason: "unreachable",
        detail: boundDetail(`the Cert Spotter API key could not be read: ${redact(String(error))}`),
      };
    }
    if (signal?.aborted) return stopped("before asking");
    const asked = this.#ask(query, apiKey);
    if (signal === undefined) return asked;
    // HttpClient takes no signal: the request runs on to its timeout, its answer unused.
    return new Promise((resolve) => {
      const stop = whenAborted(signal, () => resolve(stopped("while waiting for the answer")));
      void asked.then((outcome) => {
        stop();
        resolve(outcome);
      });
    });
  };

  readonly close = async (): Promise<void> => {
    await this.#http?.close();
  };

  async #ask(query: IssuanceQuery, apiKey: string | undefined) {
    const url = issuancesUrl(this.#options.baseUrl, query);
    try {
      this.#http ??= new HttpClient({
        timeoutMs: this.#options.timeoutMs,
        now: () => this.#now().getTime(),
        ...(this.#options.ca ? { ca: this.#options.ca } : {}),
        ...(this.#options.onCall ? { onCall: this.#options.onCall } : {}),
      });
      const response = await this.#http.send({
        upstream: "ct",
        method: "GET",
        url,
        headers: issuancesHeaders(apiKey),
        body: "",
        policy: CT_POLICY,
        deadlineMs: this.#options.timeoutMs,
        maxResponseBytes: this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      });
      return issuancePageOf(response, {
        maxPageIssuances: this.#options.maxPageIssuances ?? DEFAULT_MAX_PAGE_ISSUANCES,
        apiKey,
        url,
        now: this.#now().getTime(),
      });
    } catch (error) {
      return transportFailure(error, apiKey);
    }
  }
}

function stopped(when: string): WatcherFailure {
  return { kind: "failed", reason: "unreachable", detail: `stopped ${when}: the run ended` };
}
