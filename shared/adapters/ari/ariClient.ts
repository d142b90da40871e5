import { type AriDirectory, directoryFor } from "../../core/ari/ariSettings.js";
import { certIdOf, type NoCertId } from "../../core/ari/certId.js";
import { MAX_RENEWAL_INFO_BYTES } from "../../core/ari/renewalInfo.js";
import { DEFAULT_RETRY_INTERVAL_MS, nextAskAt } from "../../core/ari/window.js";
import type { AriAnswer } from "../../core/ports/ari.js";
import { HttpClient, type HttpClientOptions } from "../../lib/http/httpClient.js";
import type { RetryPolicy } from "../../lib/http/retryPolicy.js";
import { DAY_MS } from "../../lib/time.js";
import {
  type AriFailure,
  renewalInfoOf,
  renewalInfoUrlOf,
  transportFailure,
} from "./ariResponses.js";

export type { AriFailure, AriFailureReason } from "./ariResponses.js";

/** What asking the CA about one certificate gave (the port's answer, narrowed). */
export type AriOutcome = AriAnswer<NoCertId, AriFailure>;

/** A served certificate, as the TLS probe reads it. */
export interface AriCertificate {
  /** PEM text or DER bytes of the leaf (or its CertID, already read by the TLS probe). */
  readonly certificate: string | Uint8Array | { readonly certId: string };
  /** The leaf's issuer: X509Certificate#issuer, or ServedCertificate.issuer ("C=US, O=…, CN=R10"). */
  readonly issuer: string;
}

export interface AriClientOptions {
  /** CERTSCHED_ARI_DIRECTORIES, parsed (app/config/ariSettings.ts). */
  readonly directories: readonly AriDirectory[];
  /** CERTSCHED_ARI_TIMEOUT, ms: one whole request (directory or renewalInfo). */
  readonly timeoutMs: number;
  /** The clock for Retry-After and the caches; default the wall clock. */
  readonly now?: (() => Date) | undefined;
  /** How long a directory's renewalInfo URL is kept, ms; default 1 day. */
  readonly directoryTtlMs?: number | undefined;
  /** Answers kept per certificate until their nextAskAt; oldest dropped beyond; default 10,000. */
  readonly maxRemembered?: number | undefined;
  /** A CA certificate (PEM) trusted instead of Node's store: the sandbox's local ACME only. */
  readonly ca?: string | undefined;
  /** Observer for each finished call (telemetry), reported as upstream "ari". */
  readonly onCall?: HttpClientOptions["onCall"];
}

export interface AriClient {
  /** The CA's window for a certificate, or why there is none. Never throws. */
  renewalInfo(certificate: AriCertificate): Promise<AriOutcome>;
  close(): Promise<void>;
}

/** One attempt: the CA is asked again on a later run, at the time it says, not in a loop now. */
const ARI_POLICY: RetryPolicy = {
  statuses: [],
  networkErrors: false,
  maxRetries: 0,
  baseDelayMs: 0,
  maxDelayMs: 0,
  maxRetryAfterMs: 0,
};

/** A directory's bound: the CA's are about 1 KiB. */
const MAX_DIRECTORY_BYTES = 64 * 1024;

/** An outcome from asking (or from the answer kept): the ones with a CertID and a directory. */
type Asked = Extract<AriOutcome, { kind: "window" | "failed" }>;

type DirectoryState =
  | { readonly url: string; readonly until: number }
  | { readonly failure: AriFailure; readonly until: number };

/**
 * Asks CAs for renewal information (RFC 9773) through one keep-alive client: the directory is
 * fetched once a day per CA (concurrent callers share the fetch); each certificate's answer is
 * kept until its Retry-After; a CA that cannot be reached is not asked again, for any
 * certificate, before its retry time (1 h without a Retry-After), so a verification of 1,000
 * endpoints waits for one timeout, not 1,000.
 */
export function createAriClient(options: AriClientOptions): AriClient {
  return new HttpAriClient(options);
}

/**
 * The client as a class: its methods are fields, so that they can be passed around and the
 * client spread like the object of functions it was.
 */
class HttpAriClient implements AriClient {
  readonly #options: AriClientOptions;
  readonly #now: () => Date;
  readonly #directoryTtlMs: number;
  readonly #maxRemembered: number;
  readonly #directories = new Map<string, DirectoryState>();
  readonly #inFlight = new Map<string, Promise<DirectoryState>>();
  readonly #remembered = new Map<string, Asked>();
  /** Per directory: a CA that failed at the transport level is left alone until then. */
  readonly #downUntil = new Map<string, { until: number; failure: AriFailure }>();
  #http: HttpClient | undefined;

  constructor(options: AriClientOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#directoryTtlMs = options.directoryTtlMs ?? DAY_MS;
    this.#maxRemembered = options.maxRemembered ?? 10_000;
  }

  readonly renewalInfo = async (certificate: AriCertificate): Promise<AriOutcome> => {
    try {
      const directory = directoryFor(this.#options.directories, certificate.issuer);
      if (!directory) return { kind: "not-configured" };
      const given = certificate.certificate;
      const id =
        typeof given === "object" && "certId" in given
          ? ({ ok: true, certId: given.certId } as const)
          : certIdOf(given);
      if (!id.ok) return { kind: "no-cert-id", reason: id.reason };
      const kept = this.#remembered.get(id.certId);
      if (kept && this.#now().getTime() < kept.nextAskAt.getTime())
        return { ...kept, cached: true };
      return await this.#ask(id.certId, directory.directoryUrl);
    } catch (error) {
      // Nothing above should throw; if it does, ARI still must not stop a verification.
      return {
        kind: "failed",
        certId: "",
        directoryUrl: "",
        failure: transportFailure("ARI", error),
        nextAskAt: new Date(this.#now().getTime() + DEFAULT_RETRY_INTERVAL_MS),
        cached: false,
      };
    }
  };

  readonly close = async (): Promise<void> => {
    await this.#http?.close();
  };

  /** One GET through the keep-alive client, made on the first request. */
  #get(url: string, maxResponseBytes: number) {
    this.#http ??= new HttpClient({
      timeoutMs: this.#options.timeoutMs,
      now: () => this.#now().getTime(),
      ...(this.#options.ca ? { ca: this.#options.ca } : {}),
      ...(this.#options.onCall ? { onCall: this.#options.onCall } : {}),
    });
    return this.#http.send({
      upstream: "ari",
      method: "GET",
      url,
      headers: { accept: "application/json", "user-agent": "certsched-ari" },
      body: "",
      policy: ARI_POLICY,
      deadlineMs: this.#options.timeoutMs,
      maxResponseBytes,
    });
  }

  async #fetchDirectory(directoryUrl: string): Promise<DirectoryState> {
    try {
      const response = await this.#get(directoryUrl, MAX_DIRECTORY_BYTES);
      const found = renewalInfoUrlOf(response);
      const at = this.#now();
      if (typeof found === "string") {
        return { url: found, until: at.getTime() + this.#directoryTtlMs };
      }
      // A CA without ARI is asked again tomorrow; a failing one at its Retry-After.
      const until =
        found.reason === "not-offered"
          ? at.getTime() + this.#directoryTtlMs
          : nextAskAt(at, found.retryAfter, "failure").getTime();
      return { failure: found, until };
    } catch (error) {
      const at = this.#now().getTime();
      return {
        failure: transportFailure("the ACME directory", error),
        until: at + DEFAULT_RETRY_INTERVAL_MS,
      };
    }
  }

  /** The directory as kept until its time, else fetched (concurrent callers share the fetch). */
  #directoryState(directoryUrl: string): Promise<DirectoryState> {
    const known = this.#directories.get(directoryUrl);
    if (known && this.#now().getTime() < known.until) return Promise.resolve(known);
    let pending = this.#inFlight.get(directoryUrl);
    if (!pending) {
      pending = this.#fetchDirectory(directoryUrl).then((state) => {
        this.#directories.set(directoryUrl, state);
        this.#inFlight.delete(directoryUrl);
        return state;
      });
      this.#inFlight.set(directoryUrl, pending);
    }
    return pending;
  }

  #remember(outcome: Asked): Asked {
    this.#remembered.delete(outcome.certId);
    this.#remembered.set(outcome.certId, outcome);
    // Insertion order: the first key is the oldest answer.
    while (this.#remembered.size > this.#maxRemembered) {
      const oldest = this.#remembered.keys().next().value;
      if (oldest === undefined) break;
      this.#remembered.delete(oldest);
    }
    return outcome;
  }

  /** Asks the CA of `directoryUrl`, unless it is down or its directory failed. */
  async #ask(certId: string, directoryUrl: string): Promise<AriOutcome> {
    const failed = failedOutcome(certId, directoryUrl);
    const down = this.#downUntil.get(directoryUrl);
    if (down && this.#now().getTime() < down.until)
      return failed(down.failure, new Date(down.until), true);
    const state = await this.#directoryState(directoryUrl);
    if ("failure" in state) return failed(state.failure, new Date(state.until), false);
    return this.#askRenewalInfo(certId, directoryUrl, state.url);
  }

  /** GET renewalInfo/{certId} at `renewalInfoUrl`: the window, or why not (remembered). */
  async #askRenewalInfo(
    certId: string,
    directoryUrl: string,
    renewalInfoUrl: string,
  ): Promise<AriOutcome> {
    const failed = failedOutcome(certId, directoryUrl);
    try {
      const response = await this.#get(
        `${renewalInfoUrl}/${encodeURIComponent(certId)}`,
        MAX_RENEWAL_INFO_BYTES,
      );
      const at = this.#now();
      const info = renewalInfoOf(response);
      if ("reason" in info) {
        return this.#remember(failed(info, nextAskAt(at, info.retryAfter, "failure"), false));
      }
      return this.#remember({
        kind: "window",
        certId,
        directoryUrl,
        window: info,
        nextAskAt: nextAskAt(at, response.retryAfter, "answer"),
        cached: false,
      });
    } catch (error) {
      const failure = transportFailure("renewalInfo", error);
      const until = this.#now().getTime() + DEFAULT_RETRY_INTERVAL_MS;
      if (failure.reason === "unreachable") this.#downUntil.set(directoryUrl, { until, failure });
      return failed(failure, new Date(until), false);
    }
  }
}

/** The failed outcome of asking about `certId` at `directoryUrl`. */
function failedOutcome(certId: string, directoryUrl: string) {
  return (failure: AriFailure, until: Date, cached: boolean): Asked => ({
    kind: "failed",
    certId,
    directoryUrl,
    failure,
    nextAskAt: until,
    cached,
  });
}
