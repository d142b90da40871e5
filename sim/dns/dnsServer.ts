import type { Socket } from "node:net";
import { isIPv6 } from "node:net";
import { Packet, TCPServer, UDPServer } from "dns2";
import { dnsName, type SimDnsMode, type SimDnsRecord, SimDnsZone } from "./dnsZone.js";

/** Where the DNS server listens. */
export interface SimDnsServerOptions {
  /** A loopback address: "127.0.0.1" (default) or "::1". */
  readonly host?: string;
  /** Default 0: a free port (the same one for UDP and TCP, as resolvers expect). */
  readonly port?: number;
  /** Records to serve from the start, by name. */
  readonly records?: Readonly<Record<string, readonly SimDnsRecord[]>>;
}

/** One question the server was asked. */
export interface SimDnsQuery {
  /** As asked, lower case, without a trailing dot. */
  readonly name: string;
  /** "CAA", "NS", "CNAME", "A", or "TYPE<n>" for any other. */
  readonly type: string;
  readonly transport: "udp" | "tcp";
}

/** A DNS server on loopback answering CAA, NS, CNAME and A from its own data. */
export interface SimDnsServer {
  readonly host: string;
  readonly port: number;
  /** `host:port`, or `[host]:port` for IPv6: a CERTSCHED_DNS_SERVERS entry. */
  readonly address: string;
  /** Replaces the records of `name` (an empty list: the name exists with no records). */
  set(name: string, records: readonly SimDnsRecord[]): void;
  /** Forgets `name`: it answers NXDOMAIN. */
  remove(name: string): void;
  /** How to answer questions for `name`, or for every name without a mode of its own ("*"). */
  mode(name: string, mode: SimDnsMode): void;
  /** Every question asked, in order. */
  readonly queries: readonly SimDnsQuery[];
  stop(): Promise<void>;
}

const TYPE_NAMES = new Map<number, SimDnsRecord["type"]>([
  [Packet.TYPE.A, "A"],
  [Packet.TYPE.NS, "NS"],
  [Packet.TYPE.CNAME, "CNAME"],
  [Packet.TYPE.CAA, "CAA"],
]);

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;

/** Short: tests change records between queries and must see the change. */
const TTL = 1;

function resource(name: string, record: SimDnsRecord): Record<string, unknown> {
  const base = { name, class: Packet.CLASS.IN, ttl: TTL };
  switch (record.type) {
    case "CAA":
      return {
        ...base,
        type: Packet.TYPE.CAA,
        flags: record.flags,
        tag: record.tag,
        value: record.value,
      };
    case "NS":
      return { ...base, type: Packet.TYPE.NS, ns: record.host };
    case "CNAME":
      return { ...base, type: Packet.TYPE.CNAME, domain: record.target };
    case "A":
      return { ...base, type: Packet.TYPE.A, address: record.address };
  }
}

/** How many times a free port is looked for that is free for both UDP and TCP. */
const PORT_ATTEMPTS = 20;

/** Starts the DNS server (UDP and TCP on one port; TCP for answers over 512 bytes). */
export async function startDnsServer(options: SimDnsServerOptions = {}): Promise<SimDnsServer> {
  const host = options.host ?? "127.0.0.1";
  const zone = new SimDnsZone();
  for (const [name, records] of Object.entries(options.records ?? {})) zone.set(name, records);
  const modes = new Map<string, SimDnsMode>();
  const queries: SimDnsQuery[] = [];

  const respond = (
    request: Packet,
    send: (response: Packet) => unknown,
    transport: SimDnsQuery["transport"],
  ) => {
    const question = request.questions[0];
    if (question === undefined) return;
    const name = dnsName(question.name);
    const type = TYPE_NAMES.get(question.type) ?? `TYPE${question.type}`;
    queries.push({ name, type, transport });
    const mode = modes.get(name) ?? modes.get("*") ?? "answer";
    if (mode === "silent") return;
    const response = Packet.createResponseFromRequest(request);
    response.header.ra = 1;
    if (mode === "servfail") {
      response.header.rcode = RCODES.SERVFAIL;
    } else {
      const answer = zone.answer(name, type);
      response.header.rcode = RCODES[answer.rcode];
      for (const { name: owner, record } of answer.records) {
        response.answers.push(
          resource(owner, record) as unknown as (typeof response.answers)[number],
        );
      }
    }
    // A send to a client that has gone (a test that timed out) is no error of the server's.
    Promise.resolve(send(response)).catch(() => undefined);
  };

  const { udp, tcp, port } = await listenOnOnePort(host, options.port ?? 0, respond);
  const sockets = new Set<Socket>();
  tcp.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  return {
    host,
    port,
    address: isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`,
    set: (name, records) => zone.set(name, records),
    remove: (name) => zone.remove(name),
    mode: (name, mode) => {
      modes.set(name === "*" ? "*" : dnsName(name), mode);
    },
    queries,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

type Respond = (
  request: Packet,
  send: (response: Packet) => unknown,
  transport: SimDnsQuery["transport"],
) => void;

async function listenOnOnePort(
  host: string,
  wanted: number,
  respond: Respond,
): Promise<{ udp: UDPServer; tcp: TCPServer; port: number }> {
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535) {
    throw new RangeError(`DNS server option port must be a number in 0..65535, got ${wanted}`);
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < (wanted === 0 ? PORT_ATTEMPTS : 1); attempt++) {
    const udp = new UDPServer({ type: isIPv6(host) ? "udp6" : "udp4" });
    udp.on("request", (request, send) => respond(request, send, "udp"));
    udp.on("requestError", () => undefined);
    await udp.listen(wanted, host);
    const port = udp.address().port;
    const tcp = new TCPServer();
    tcp.on("request", (request, send) => respond(request, send, "tcp"));
    tcp.on("requestError", () => undefined);
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once("error", reject);
        tcp.listen(port, host, () => {
          tcp.off("error", reject);
          resolve();
        });
      });
      return { udp, tcp, port };
    } catch (error) {
      lastError = error;
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    }
  }
  throw lastError;
}
