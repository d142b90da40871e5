import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Ledger,
  type LedgerEntry,
  type LedgerRecord,
  memoryLedger,
} from "../../../../shared/core/ports/ledger.js";
import {
  type ClaimAndSendResult,
  claimAndSend,
} from "../../../../shared/core/renewal/claimAndSend.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { HttpClient } from "../../../../shared/lib/http/httpClient.js";
import { RENEW } from "../../../../shared/lib/http/retryPolicy.js";

/**
 * claimAndSend through a real socket: the row says "sent" only once the request's
 * bytes have been handed to the socket, and the request's last byte leaves only once that write
 * has landed. A raw TCP server shows what reached it, byte by byte.
 */
const T = new Date("2026-05-04T03:00:00.000Z");
const BODY = JSON.stringify({ certificate: { certificateName: "www.example.com", id: 7 } });
const cert = { id: 7, certificateName: "www.example.com", expiryDate: new Date("2026-05-20") };

/** What one connection delivered: the raw bytes, and whether the client closed it. */
interface Arrival {
  bytes: Buffer;
  closed: boolean;
  socket: Socket;
}

interface RawServer {
  readonly url: string;
  readonly arrivals: Arrival[];
  /** Resolves once some connection has delivered at least `n` bytes of body. */
  bodyBytes(n: number): Promise<Arrival>;
  close(): Promise<void>;
}

const bodyOf = (a: Arrival): Buffer => {
  const at = a.bytes.indexOf("\r\n\r\n");
  return at < 0 ? Buffer.alloc(0) : a.bytes.subarray(at + 4);
};

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A TCP server that reads and never answers unless `answer` is called with the socket. */
async function rawServer(onBody?: (arrival: Arrival) => void, tls = false): Promise<RawServer> {
  const arrivals: Arrival[] = [];
  const waiters: { n: number; resolve: (a: Arrival) => void }[] = [];
  const server: Server = createServer((socket) => {
    const arrival: Arrival = { bytes: Buffer.alloc(0), closed: false, socket };
    arrivals.push(arrival);
    socket.on("data", (chunk: Buffer) => {
      arrival.bytes = Buffer.concat([arrival.bytes, chunk]);
      for (const w of [...waiters]) {
        if (bodyOf(arrival).length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(arrival);
        }
      }
      if (bodyOf(arrival).length === Buffer.byteLength(BODY)) onBody?.(arrival);
    });
    socket.on("close", () => {
      arrival.closed = true;
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no port");
  const handle = {
    url: `${tls ? "https" : "http"}://127.0.0.1:${address.port}/renew`,
    arrivals,
    bodyBytes: (n: number) =>
      new Promise<Arrival>((resolve) => {
        const done = arrivals.find((a) => bodyOf(a).length >= n);
        if (done) resolve(done);
        else waiters.push({ n, resolve });
      }),
    close: async () => {
      for (const a of arrivals) a.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(handle);
  return handle;
}

const answer200 = (a: Arrival) =>
  a.socket.write(
    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 9\r\n\r\nscheduled",
  );

/** A memory ledger whose "sent" write waits for `release` (or fails / loses when told). */
function gatedLedger(mode: "wait" | "fail" | "lose" = "wait") {
  const inner = memoryLedger();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const outcomes: string[] = [];
  let sentWriteStarted = false;
  const ledger: Ledger = {
    ...inner,
    write: async (record: LedgerRecord, etag: string | undefined) => {
      if (record.outcome === "sent") {
        sentWriteStarted = true;
        await gate;
        if (mode === "fail") throw new CertschedError("LEDGER_UNAVAILABLE", "storage gone");
        if (mode === "lose") {
          // Another sweep took the claim over meanwhile.
          const current = (await inner.read(record.id)) as LedgerEntry;
          await inner.write({ ...current.record, claimedAt: new Date(T.getTime() + 1) }, etag);
        }
      }
      const written = await inner.write(record, etag);
      if (written !== "conflict") outcomes.push(record.outcome);
      return written;
    },
  };
  return {
    ledger,
    release: () => release(),
    outcomes,
    sentWriteStarted: () => sentWriteStarted,
    row: async () => (await inner.read(cert.id))?.record,
  };
}

function run(
  ledger: Ledger,
  url: string,
  http = new HttpClient({ timeoutMs: 5_000 }),
): Promise<ClaimAndSendResult> {
  return claimAndSend({
    cert,
    entry: undefined,
    previous: undefined,
    reason: "NewRenewal",
    stuck: false,
    ledger,
    claimedAt: T,
    now: () => T,
    send: async (sending) => {
      try {
        const res = await http.send({
          upstream: "publicRenew",
          url,
          headers: { "content-type": "application/json" },
          body: BODY,
          policy: { ...RENEW, maxRetries: 0 },
          sending,
        });
        return res.text;
      } finally {
        await http.close();
      }
    },
    ledgerFailed: () => {},
    unresolved: () => {},
    describe: (error) => ({ detail: error instanceof Error ? error.message : String(error) }),
  });
}

describe("claimAndSend over a real socket: 'sent' only once the bytes leave", () => {
  it("the row says 'claimed' while the request is on the wire but held; 'sent' lands before the last byte", async () => {
    const world = gatedLedger();
    const server = await rawServer(answer200);
    const result = run(world.ledger, server.url);

    // Headers and all of the body but its last byte reached the server; the "sent" write waits.
    const arrival = await server.bodyBytes(Buffer.byteLength(BODY) - 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bodyOf(arrival).toString()).toBe(BODY.slice(0, -1));
    expect(arrival.bytes.toString()).toContain(`content-length: ${Buffer.byteLength(BODY)}`);
    expect(world.sentWriteStarted()).toBe(true);
    expect((await world.row())?.outcome).toBe("claimed");

    world.release();
    expect(await result).toEqual({ kind: "answered", message: "scheduled" });
    expect(bodyOf(arrival).toString()).toBe(BODY);
    expect(world.outcomes).toEqual(["claimed", "sent", "renewal-scheduled"]);
    expect(await world.row()).toMatchObject({
      outcome: "renewal-scheduled",
      attempts: 1,
      lastRequestedAt: T,
    });
  });

  it("a 'sent' write that fails ends the request before its last byte: the server never has it whole", async () => {
    const world = gatedLedger("fail");
    const server = await rawServer(answer200);
    const result = run(world.ledger, server.url);
    const arrival = await server.bodyBytes(Buffer.byteLength(BODY) - 1);
    world.release();

    expect(await result).toEqual({ kind: "ledger-failed", step: "sent" });
    await expect.poll(() => arrival.closed).toBe(true);
    expect(bodyOf(arrival).length).toBe(Buffer.byteLength(BODY) - 1);
    expect((await world.row())?.outcome).toBe("claimed");
  });

  it("a 'sent' write that loses (a takeover) ends the request the same way: conflict", async () => {
    const world = gatedLedger("lose");
    const server = await rawServer(answer200);
    const result = run(world.ledger, server.url);
    const arrival = await server.bodyBytes(Buffer.byteLength(BODY) - 1);
    world.release();

    expect(await result).toEqual({ kind: "conflict", step: "sent" });
    await expect.poll(() => arrival.closed).toBe(true);
    expect(bodyOf(arrival).length).toBe(Buffer.byteLength(BODY) - 1);
    // The row is the other sweep's claim, untouched by this one.
    expect(world.outcomes).toEqual(["claimed"]);
    expect(await world.row()).toMatchObject({
      outcome: "claimed",
      claimedAt: new Date(T.getTime() + 1),
      attempts: 0,
    });
  });

  it("a server that reads the request and never answers: 'sent', then 'answer-unknown' at the timeout", async () => {
    const world = gatedLedger();
    world.release();
    const server = await rawServer();
    const result = await run(world.ledger, server.url, new HttpClient({ timeoutMs: 400 }));

    expect(result.kind).toBe("unanswered");
    expect(bodyOf(server.arrivals[0] as Arrival).toString()).toBe(BODY);
    expect(world.outcomes).toEqual(["claimed", "sent", "answer-unknown"]);
  });

  it("a connection that never completes (TLS to a server that never answers): never 'sent'", async () => {
    const world = gatedLedger();
    world.release();
    const server = await rawServer(undefined, true);
    const pending = run(world.ledger, server.url, new HttpClient({ timeoutMs: 600 }));

    // While the handshake hangs the row says "claimed": a crash now leaves an unsent claim.
    await expect.poll(() => server.arrivals.length).toBe(1);
    expect((await world.row())?.outcome).toBe("claimed");
    expect(world.sentWriteStarted()).toBe(false);

    const result = await pending;
    expect(result.kind).toBe("refused");
    expect(world.sentWriteStarted()).toBe(false);
    // Nothing was sent: the episode's request times and attempts stay as they were.
    expect(await world.row()).toMatchObject({
      outcome: "failed",
      attempts: 0,
      lastRequestedAt: undefined,
      firstRequestedAt: undefined,
    });
    expect(bodyOf(server.arrivals[0] as Arrival).length).toBe(0);
  });
});
