import { promises as dns } from "node:dns";
import { isIPv6 } from "node:net";
import type { CaaRecord, DnsAnswer, DnsLookups } from "../../core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../core/preflight/preflight.js";
import type { DnsServer } from "../../core/preflight/preflightSettings.js";
import { whenAborted } from "../../lib/abort.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * DNS for preflight through node:dns `Resolver` and the configured servers.
 *
 * CAA is read with `resolveCaa`. It reports each record as `{ critical, <tag>: value }`:
 * `critical` is the whole flags octet (RFC 8659 bit 128 is the issuer-critical flag, read by
 * core/preflight/caa.ts), the tag is a property name (case kept) and the value a one-byte string.
 * Node 24 adds `type: "CAA"` to each. Four corners of RFC 8659 do not survive that shape, and
 * none is allowed to become a wrong answer: a record whose tag is `critical` overwrites the
 * flags, one whose tag is `type` loses it on Node 24, a tag `__proto__` disappears (each →
 * `unknown`: the set cannot be read whole), and c-ares refuses a record with an empty
 * value (a legal "no CA", `0 issue ""`) with EBADRESP → `unknown`. Values are turned back into
 * their UTF-8 bytes. A raw query would read those corners too, at the price of our own DNS client
 * (UDP, TCP for long answers, alias chains, the system's servers): not worth it for records
 * nobody publishes.
 */

/** Options of `dnsLookups`. */
export interface DnsLookupsOptions {
  /** CERTSCHED_DNS_SERVERS; empty: the system's resolvers. */
  readonly servers: readonly DnsServer[];
  /** ms: the most one lookup takes, every server included (CERTSCHED_PREFLIGHT_TIMEOUT). */
  readonly timeoutMs: number;
}

/** More records of one type at one name than this is an answer preflight does not judge. */
export const MAX_DNS_RECORDS = 50;
/** Characters kept of a CAA value: an issuer domain is at most 253 (RFC 1035), so no cut changes one. */
export const MAX_CAA_VALUE = 512;
/** Characters kept of a name server's host name. */
export const MAX_NS_HOST = 255;

/** `host:port`, `[v6]:port`: what `Resolver.setServers` reads. */
export function serverAddress(server: DnsServer): string {
  return isIPv6(server.host) ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}

export function dnsLookups(options: DnsLookupsOptions): DnsLookups {
  return {
    caa: (name, signal) =>
      lookup(options, "CAA", name, signal, async (resolver, fqdn) =>
        caaAnswer(await resolver.resolveCaa(fqdn)),
      ),
    ns: (name, signal) =>
      lookup(options, "NS", name, signal, async (resolver, fqdn) =>
        nsAnswer(await resolver.resolveNs(fqdn)),
      ),
  };
}

type Mapped<T> = { readonly kind: "records"; readonly records: readonly T[] } | Problem;
interface Problem {
  readonly kind: "problem";
  readonly what: string;
}

function caaAnswer(raw: readonly object[]): Mapped<CaaRecord> {
  if (raw.length > MAX_DNS_RECORDS) return tooMany(raw.length);
  const records: CaaRecord[] = [];
  for (const entry of raw) {
    const { critical, ...fields } = entry as Record<string, unknown>;
    // Node 24 names the record's type beside its tag (`type: "CAA"`): not a tag. A record whose
    // tag is `type` is then left without one, and so unknown, as with `critical`.
    const properties = Object.entries(fields).filter(
      ([name, value]) => !(name === "type" && value === "CAA"),
    );
    if (typeof critical !== "number") {
      return { kind: "problem", what: "a CAA record with the tag 'critical' hides its flags" };
    }
    const [property] = properties;
    if (property === undefined || properties.length !== 1 || typeof property[1] !== "string") {
      return { kind: "problem", what: "a CAA record's tag could not be read" };
    }
    const [tag, oneByte] = property;
    const value = Buffer.from(oneByte, "latin1").toString("utf8").slice(0, MAX_CAA_VALUE);
    records.push({ flags: critical, tag: tag.slice(0, MAX_CAA_VALUE), value });
  }
  return { kind: "records", records };
}

function nsAnswer(raw: readonly string[]): Mapped<string> {
  if (raw.length > MAX_DNS_RECORDS) return tooMany(raw.length);
  return { kind: "records", records: raw.map((host) => host.slice(0, MAX_NS_HOST)) };
}

function tooMany(count: number): Problem {
  return {
    kind: "problem",
    what: `${count} records, more than preflight reads (${MAX_DNS_RECORDS})`,
  };
}

/** What a resolver error means: ENODATA and ENOTFOUND are answers (an empty set). */
function fromError(error: unknown, timeoutMs: number): "none" | string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENODATA":
    case "ENOTFOUND":
      return "none";
    case "ETIMEOUT":
      return `no answer within ${timeoutMs} ms`;
    case "ESERVFAIL":
      return "the server answered SERVFAIL";
    case "ECONNREFUSED":
      return "connection refused";
    case "EREFUSED":
      return "the server refused the query";
    case "EBADRESP":
      return "an answer the resolver could not read (EBADRESP)";
    default: {
      const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
      return typeof code === "string" ? `${code}: ${message}` : `${message}`;
    }
  }
}

async function lookup<T>(
  options: DnsLookupsOptions,
  type: "CAA" | "NS",
  name: string,
  signal: AbortSignal | undefined,
  query: (resolver: dns.Resolver, fqdn: string) => Promise<Mapped<T>>,
): Promise<DnsAnswer<T>> {
  const via =
    options.servers.length === 0
      ? "the system's resolvers"
      : options.servers.map(serverAddress).join(", ");
  const unknown = (what: string): DnsAnswer<T> => ({
    kind: "unknown",
    detail: boundDetail(
      redact(`DNS ${type} query for ${name} via ${via}: ${what}`),
      MAX_CHECK_DETAIL,
    ),
  });
  if (signal?.aborted) return unknown("aborted");
  // Each server gets its share of the budget, so the next one is asked before the lookup's own
  // timer (the bound a silent server cannot stretch) gives up.
  const count = options.servers.length > 0 ? options.servers.length : dns.getServers().length;
  const resolver = new dns.Resolver({
    timeout: Math.max(1, Math.floor(options.timeoutMs / Math.max(1, count))),
    tries: 1,
  });
  try {
    if (options.servers.length > 0) resolver.setServers(options.servers.map(serverAddress));
  } catch (error) {
    return unknown(`not a DNS server address (${fromError(error, options.timeoutMs)})`);
  }
  // Absolute: a resolv.conf `search` list must never turn contoso.com into contoso.com.corp.
  const fqdn = `${name.replace(/\.$/, "")}.`;

  return new Promise<DnsAnswer<T>>((resolve) => {
    let settled = false;
    const finish = (answer: DnsAnswer<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopWaiting();
      resolver.cancel();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish(unknown(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const stopWaiting = signal ? whenAborted(signal, () => finish(unknown("aborted"))) : () => {};
    query(resolver, fqdn).then(
      (mapped) =>
        finish(
          mapped.kind === "problem"
            ? unknown(mapped.what)
            : mapped.records.length === 0
              ? { kind: "none" }
              : mapped,
        ),
      (error: unknown) => {
        const meaning = fromError(error, options.timeoutMs);
        finish(meaning === "none" ? { kind: "none" } : unknown(meaning));
      },
    );
  });
}
