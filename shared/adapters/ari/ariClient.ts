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
  const now = options.now ?? (() => new Date());
  const directoryTtlMs = options.directoryTtlMs ?? DAY_MS;
  const maxRemembered = options.maxRemembered ?? 10_000;
  const directories = new Map<string, DirectoryState>();
  const inFlight = new Map<string, Promise<DirectoryState>>();
  const remembered = new Map<string, Asked>();
  /** Per directory: a CA that failed at the transport level is left alone until then. */
  const downUntil = new Map<string, { until: number; failure: AriFailure }>();
  let http: HttpClient | undefined;

  const get = (url: string, maxResponseBytes: number) => {
    http ??= new HttpClient({
      timeoutMs: options.timeoutMs,
      now: () => now().getTime(),
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.onCall ? { onCall: options.onCall } : {}),
    });
    return http.send({
      upstream: "ari",
      method: "GET",
      url,
      headers: { accept: "application/json", "user-agent": "certsched-ari" },
      body: "",
      policy: ARI_POLICY,
      deadlineMs: options.timeoutMs,
      maxResponseBytes,
    });
  };

  const fetchDirectory = async (directoryUrl: string): Promise<DirectoryState> => {
    try {
      const response = await get(directoryUrl, MAX_DIRECTORY_BYTES);
      const found = renewalInfoUrlOf(response);
      const at = now();
      if (typeof found === "string") return { url: found, until: at.getTime() + directoryTtlMs };
      // A CA without ARI is asked again tomorrow; a failing one at its Retry-After.
      const until =
        found.reason === "not-offered"
          ? at.getTime() + directoryTtlMs
          : nextAskAt(at, found.retryAfter, "failure").getTime();
      return { failure: found, until };
    } catch (error) {
      const at = now().getTime();
      return {
        failure: transportFailure("the ACME directory", error),
        until: at + DEFAULT_RETRY_INTERVAL_MS,
      };
    }
  };

  const directoryState = (directoryUrl: string): Promise<DirectoryState> => {
    const known = directories.get(directoryUrl);
    if (known && now().getTime() < known.until) return Promise.resolve(known);
    let pending = inFlight.get(directoryUrl);
    if (!pending) {
      pending = fetchDirectory(directoryUrl).then((state) => {
        directories.set(directoryUrl, state);
        inFlight.delete(directoryUrl);
        return state;
      });
      inFlight.set(directoryUrl, pending);
    }
    return pending;
  };

  const remember = (outcome: Asked): Asked => {
    remembered.delete(outcome.certId);
    remembered.set(outcome.certId, outcome);
    // Insertion order: the first key is the oldest answer.
    while (remembered.size > maxRemembered) {
      const oldest = remembered.keys().next().value;
      if (oldest === undefined) break;
      remembered.delete(oldest);
    }
    return outcome;
  };

  const ask = async (certId: string, directoryUrl: string): Promise<AriOutcome> => {
    const failed = (failure: AriFailure, until: Date, cached: boolean): Asked => ({
      kind: "failed",
      certId,
      directoryUrl,
      failure,
      nextAskAt: until,
      cached,
    });
    const down = downUntil.get(directoryUrl);
    if (down && now().getTime() < down.until)
      return failed(down.failure, new Date(down.until), true);
    const state = await directoryState(directoryUrl);
    if ("failure" in state) return failed(state.failure, new Date(state.until), false);
    try {
      const response = await get(
        `${state.url}/${encodeURIComponent(certId)}`,
        MAX_RENEWAL_INFO_BYTES,
      );
      const at = now();
      const info = renewalInfoOf(response);
      if ("reason" in info) {
        return remember(failed(info, nextAskAt(at, info.retryAfter, "failure"), false));
      }
      return remember({
        kind: "window",
        certId,
        directoryUrl,
        window: info,
        nextAskAt: nextAskAt(at, response.retryAfter, "answer"),
        cached: false,
      });
    } catch (error) {
      const failure = transportFailure("renewalInfo", error);
      const until = now().getTime() + DEFAULT_RETRY_INTERVAL_MS;
      if (failure.reason === "unreachable") downUntil.set(directoryUrl, { until, failure });
      return failed(failure, new Date(until), false);
    }
  };

  return {
    async renewalInfo(certificate) {
      try {
        const directory = directoryFor(options.directories, certificate.issuer);
        if (!directory) return { kind: "not-configured" };
        const given = certificate.certificate;
        const id =
          typeof given === "object" && "certId" in given
            ? ({ ok: true, certId: given.certId } as const)
            : certIdOf(given);
        if (!id.ok) return { kind: "no-cert-id", reason: id.reason };
        const kept = remembered.get(id.certId);
        if (kept && now().getTime() < kept.nextAskAt.getTime()) return { ...kept, cached: true };
        return await ask(id.certId, directory.directoryUrl);
      } catch (error) {
        // Nothing above should throw; if it does, ARI still must not stop a verification.
        return {
          kind: "failed",
          certId: "",
          directoryUrl: "",
          failure: transportFailure("ARI", error),
          nextAskAt: new Date(now().getTime() + DEFAULT_RETRY_INTERVAL_MS),
          cached: false,
        };
      }
    },
    async close() {
      await http?.close();
    },
  };
}
