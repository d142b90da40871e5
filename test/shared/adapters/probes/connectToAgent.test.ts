import https from "node:https";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectToAgent } from "../../../../shared/adapters/probes/connectToAgent.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { type RecordingServer, startTlsServer } from "../../../support/tlsServers.js";

const VAULT = "kv1.vault.example.test";
const ca = makeCa("certsched connect-to test CA");
const now = Date.now();
const leaf = makeLeaf(ca, {
  names: [VAULT],
  notBefore: new Date(now - 86_400_000),
  notAfter: new Date(now + 30 * 86_400_000),
});

let server: RecordingServer;
beforeAll(async () => {
  server = await startTlsServer(leaf);
});
afterAll(async () => {
  await server?.close();
});

/** Opens one HTTPS connection through `agent` to host:port; what the handshake showed. */
function connect(agent: https.Agent, host: string, port: number) {
  return new Promise<{ remotePort: number | undefined; authorized: boolean; error?: Error }>(
    (resolve) => {
      const target = server.handshakes() + 1;
      const request = https.get({ host, port, path: "/", agent });
      request.on("error", (error) => resolve({ remotePort: undefined, authorized: false, error }));
      request.on("socket", (socket) => {
        const tls = socket as TLSSocket;
        tls.once("secureConnect", async () => {
          // Closed once the server saw the handshake through (TLS 1.3 ends on the client's side).
          for (let i = 0; i < 200 && server.handshakes() < target; i++) {
            await new Promise((r) => setTimeout(r, 10));
          }
          resolve({ remotePort: tls.remotePort, authorized: tls.authorized });
          request.destroy();
        });
      });
    },
  );
}

describe("ConnectToAgent", () => {
  it("connects where the rule says; SNI and the name check keep the vault's host", async () => {
    const before = server.serverNames.length;
    const agent = new ConnectToAgent(parseConnectTo(`${VAULT}:443:127.0.0.1:${server.port}`), {
      ca: [ca.cert],
    });
    const seen = await connect(agent, VAULT, 443);
    agent.destroy();
    await server.closedAfterHandshakes(before + 1);
    expect(seen.error).toBeUndefined();
    expect(seen.remotePort).toBe(server.port);
    // Authorized: the certificate names the vault's host, not 127.0.0.1.
    expect(seen.authorized).toBe(true);
    expect(server.serverNames.slice(before)).toEqual([VAULT]);
  });

  it("a rule for another host or port does not apply", async () => {
    const agent = new ConnectToAgent(
      parseConnectTo(`other.example.test:443:127.0.0.1:1,${VAULT}:8443:127.0.0.1:1`),
      { ca: [ca.cert], rejectUnauthorized: false },
    );
    const before = server.serverNames.length;
    const seen = await connect(agent, "127.0.0.1", server.port);
    agent.destroy();
    await server.closedAfterHandshakes(before + 1);
    expect(seen.remotePort).toBe(server.port);
    // An IP address is never sent as SNI (RFC 6066).
    expect(server.serverNames.slice(before)).toEqual([undefined]);
  });
});
