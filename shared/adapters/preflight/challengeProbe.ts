import { randomBytes } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { domainToASCII } from "node:url";
import type { Agent } from "undici";
import type { ChallengeAnswer, ChallengeProbe } from "../../core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../core/preflight/preflight.js";
import {
  type ConnectToRule,
  type Destination,
  matchingRule,
  resolveConnectTo,
} from "../../core/verification/connectTo.js";
import {
  isPublicAddress,
  NOT_PUBLIC_CODE,
  serviceNameProblem,
} from "../../core/verification/publicAddress.js";
import { whenAborted } from "../../lib/abort.js";
import { loadUndici, type Undici } from "../../lib/http/undiciCore.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * HTTP-01 reachability: one GET of a challenge path nobody has published, at
 * `http://{domain}/.well-known/acme-challenge/certsched-preflight-<random>`, as the certificate
 * authority will send it. Any HTTP status from the app, 404 included, shows the app answers
 * there; only no answer at all (or a redirect off the host) means the challenge cannot succeed.
 * Redirects are never followed, and at most MAX_BODY_BYTES of the body are read, then dropped.
 */

export interface ChallengeProbeOptions {
  /** CERTSCHED_VERIFY_CONNECT_TO: where the connection for `{domain}:80` goes; the Host header stays the domain. */
  readonly connectTo: readonly ConnectToRule[];
  /** The whole request: lookup, connection, headers and what is read of the body. */
  readonly timeoutMs: number;
}

export const CHALLENGE_PATH = "/.well-known/acme-challenge/";

/** What is read of an answer's body before the connection is dropped. */
export const MAX_BODY_BYTES = 4096;

const HTTP_PORT = 80;

/** undici's own timeouts sit this far past the probe's deadline, which always ends it first. */
const SLACK_MS = 1_000;

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

const ROUTE_HINT = "route it with CERTSCHED_VERIFY_CONNECT_TO to check it anyway";

/**
 * dns.lookup refusing any name with an address that is not public (the connection is then never
 * opened), as adapters/probes/publicOnlyLookup.ts does for verification: adapter areas import
 * nothing of each other, so the few lines live here too.
 */
const publicOnly: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    if (found.length === 0 || found.some((a) => !isPublicAddress(a.address))) {
      const refused = Object.assign(new Error("not public"), { code: NOT_PUBLIC_CODE });
      return callback(refused, "", 0);
    }
    if (options.all) {
      return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, found);
    }
    const first = found[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};

const unreachable = (detail: string): ChallengeAnswer => ({
  kind: "unreachable",
  detail: boundDetail(redact(detail), MAX_CHECK_DETAIL),
});

function hostPort(to: Destination): string {
  return `${isIP(to.host) === 6 ? `[${to.host}]` : to.host}:${to.port}`;
}

/** The domain in the ASCII form it is looked up and sent as, or undefined if it is no host name. */
function asciiHost(domain: string): string | undefined {
  const lower = domain.trim().toLowerCase().replace(/\.$/, "");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any character beyond ASCII.
  const ascii = /[^\u0000-\u007f]/.test(lower) ? domainToASCII(lower) : lower;
  return HOSTNAME.test(ascii) ? ascii : undefined;
}

/** A TLS record header (change_cipher_spec .. application_data, version 3.x). */
function looksLikeTls(data: unknown): boolean {
  const text = typeof data === "string" ? data : "";
  const type = text.charCodeAt(0);
  return type >= 0x14 && type <= 0x17 && text.charCodeAt(1) === 0x03;
}

/** Why the exchange failed, in words for people. */
function failureDetail(error: unknown, host: string, at: string): string {
  const e = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown; data?: unknown };
  const code = typeof e.code === "string" ? e.code : undefined;
  const message = typeof e.message === "string" ? e.message : String(error);
  if (code === NOT_PUBLIC_CODE) {
    return `not probed: ${host} resolves to an address that is not public; ${ROUTE_HINT}`;
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_FAIL") {
    return `${host} does not resolve (${code})`;
  }
  if (code === "ECONNREFUSED") return `connection refused at ${at}`;
  if (e.name === "HTTPParserError") {
    return looksLikeTls(e.data)
      ? `${at} answered in TLS, not plain HTTP: port 80 must answer http://`
      : `${at} answered something that is not HTTP`;
  }
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return `the connection was closed without an answer at ${at}`;
  }
  return `no answer at ${at}: ${message}${code ? ` (${code})` : ""}`;
}

/** A 3xx's Location, when it names another host: the challenge would leave the app. */
function offHost(status: number, location: unknown, url: URL): string | undefined {
  if (status < 300 || status > 399) return undefined;
  const text = Array.isArray(location) ? location[0] : location;
  if (typeof text !== "string" || text === "") return undefined;
  let target: URL;
  try {
    target = new URL(text, url);
  } catch {
    return `answered ${status} with a Location that is not a URL ("${text}")`;
  }
  const same = target.hostname.toLowerCase().replace(/\.$/, "") === url.hostname;
  return same ? undefined : `redirects to ${target.hostname} (${status} to ${target.origin})`;
}

export function challengeProbe(options: ChallengeProbeOptions): ChallengeProbe {
  return {
    reach: async (domain, signal) => {
      try {
        return await reach(domain, options, signal);
      } catch (error) {
        // A bug here must not throw through the check: it is reported as this probe's answer.
        return unreachable(`the probe failed: ${String(error)}`);
      }
    },
  };
}

async function reach(
  domain: string,
  options: ChallengeProbeOptions,
  signal: AbortSignal | undefined,
): Promise<ChallengeAnswer> {
  const host = asciiHost(domain);
  if (host === undefined) return unreachable(`"${domain}" is not a host name`);
  // A rule naming where to go is the operator's own word; otherwise the service's name decides
  // where the request goes, and it may only go to a public address.
  const vetted = matchingRule(options.connectTo, host, HTTP_PORT)?.toHost === undefined;
  const to = resolveConnectTo(options.connectTo, host, HTTP_PORT);
  if (vetted) {
    const problem = serviceNameProblem(host);
    if (problem !== undefined) return unreachable(`not probed: ${host}: ${problem}; ${ROUTE_HINT}`);
    if (isIP(to.host) !== 0 && !isPublicAddress(to.host)) {
      return unreachable(`not probed: ${to.host} is not a public address; ${ROUTE_HINT}`);
    }
  }
  if (signal?.aborted) return unreachable("the check was cancelled");
  const at = hostPort(to);
  const url = new URL(`http://${host}${CHALLENGE_PATH}certsched-preflight-${token()}`);
  const lib = await loadUndici();
  const connector = lib.buildConnector({
    // The probe's own deadline (below) is the one clock; undici's would only race it.
    timeout: options.timeoutMs + SLACK_MS,
    ...(vetted ? { lookup: publicOnly } : {}),
  });
  // Only this origin is ever asked (no redirect is followed), so every connection goes to `to`.
  const agent: Agent = new lib.Agent({
    connect: (opts, callback) =>
      connector({ ...opts, hostname: to.host, port: String(to.port) }, callback),
  });
  const controller = new AbortController();
  // Past the deadline, what the app said (its status) stands; without it there was no answer.
  let answer: ChallengeAnswer | undefined;
  let settle: (result: ChallengeAnswer) => void = () => {};
  const outcome = new Promise<ChallengeAnswer>((resolve) => {
    settle = resolve;
  });
  const timer = setTimeout(
    () => settle(answer ?? unreachable(`no answer within ${options.timeoutMs} ms at ${at}`)),
    options.timeoutMs,
  );
  const stopCancel = signal
    ? whenAborted(signal, () => settle(answer ?? unreachable("the check was cancelled")))
    : () => {};
  exchange(lib, agent, url, at, options.timeoutMs, controller.signal, (heard) => {
    answer = heard;
  }).then(settle, (error: unknown) => settle(answer ?? unreachable(String(error))));
  try {
    return await outcome;
  } finally {
    clearTimeout(timer);
    stopCancel();
    controller.abort();
    // Nothing of the exchange outlives the probe: its socket is closed whatever state it is in.
    agent.destroy().catch(() => {});
  }
}

async function exchange(
  lib: Undici,
  agent: Agent,
  url: URL,
  at: string,
  timeoutMs: number,
  signal: AbortSignal,
  heard: (answer: ChallengeAnswer) => void,
): Promise<ChallengeAnswer> {
  let res: Awaited<ReturnType<typeof lib.request>>;
  try {
    res = await lib.request(url, {
      dispatcher: agent,
      method: "GET",
      headers: { "user-agent": "certsched-preflight", accept: "*/*" },
      reset: true,
      signal,
      headersTimeout: timeoutMs + SLACK_MS,
      bodyTimeout: timeoutMs + SLACK_MS,
    });
  } catch (error) {
    return unreachable(failureDetail(error, url.hostname, at));
  }
  const away = offHost(res.statusCode, res.headers.location, url);
  const answer: ChallengeAnswer =
    away === undefined ? { kind: "answered", status: res.statusCode } : unreachable(away);
  heard(answer);
  let read = 0;
  try {
    for await (const chunk of res.body) {
      read += (chunk as Buffer).length;
      if (read >= MAX_BODY_BYTES) break;
    }
  } catch {
    // The status was the answer; a body cut short says nothing more.
  }
  res.body.destroy();
  return answer;
}

/** A path nobody published: no cache or stale file can stand in for the app. */
function token(): string {
  return randomBytes(12).toString("hex");
}
