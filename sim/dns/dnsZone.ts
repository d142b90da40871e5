/**
 * The simulator's DNS data and how it answers, as a recursive resolver would over it: a query
 * for a name that is an alias answers the alias chain plus the target's records of the type.
 */

/** One record the simulator serves. Tags and values go on the wire as given (tags ASCII). */
export type SimDnsRecord =
  | { readonly type: "CAA"; readonly flags: number; readonly tag: string; readonly value: string }
  | { readonly type: "NS"; readonly host: string }
  | { readonly type: "CNAME"; readonly target: string }
  | { readonly type: "A"; readonly address: string };

export type SimDnsType = SimDnsRecord["type"];

/** What the server does for a name: answer from its data, never answer, or say SERVFAIL. */
export type SimDnsMode = "answer" | "silent" | "servfail";

/** An answer: the rcode and the records in the answer section, each with its owner name. */
export interface SimDnsAnswer {
  readonly rcode: "NOERROR" | "NXDOMAIN" | "SERVFAIL";
  readonly records: readonly { readonly name: string; readonly record: SimDnsRecord }[];
}

/** Longest alias chain followed; a longer one (or a loop) is answered as far as it got. */
export const MAX_CNAME_CHAIN = 8;

/** Lower case, without the trailing dot: DNS names compare case-insensitively. */
export const dnsName = (name: string): string => name.toLowerCase().replace(/\.$/, "");

export class SimDnsZone {
  readonly #names = new Map<string, readonly SimDnsRecord[]>();

  set(name: string, records: readonly SimDnsRecord[]): void {
    this.#names.set(dnsName(name), [...records]);
  }

  remove(name: string): void {
    this.#names.delete(dnsName(name));
  }

  /** The answer to a query of `type` for `name` (`type` as the question's name, e.g. "CAA"). */
  answer(name: string, type: string): SimDnsAnswer {
    const records: { name: string; record: SimDnsRecord }[] = [];
    let current = dnsName(name);
    for (let step = 0; step <= MAX_CNAME_CHAIN; step++) {
      const held = this.#names.get(current);
      if (held === undefined) {
        return { rcode: "NXDOMAIN", records };
      }
      const ofType = held.filter((r) => r.type === type);
      if (ofType.length > 0) {
        for (const record of ofType) records.push({ name: current, record });
        return { rcode: "NOERROR", records };
      }
      const alias = held.find((r) => r.type === "CNAME");
      if (alias?.type !== "CNAME") return { rcode: "NOERROR", records };
      records.push({ name: current, record: alias });
      current = dnsName(alias.target);
    }
    return { rcode: "NOERROR", records };
  }
}
