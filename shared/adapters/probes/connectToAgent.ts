import https from "node:https";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { type ConnectToRule, resolveConnectTo } from "../../core/verification/connectTo.js";

/**
 * CERTSCHED_VERIFY_CONNECT_TO for the vault, as for a TLS probe: each connection goes where the
 * first matching rule says, while SNI and the certificate's name check still use the vault's
 * own host (Node checks the identity against `servername`). Without it a split-DNS user could
 * not reach their vault, and the sandbox would send its vault token to a real Azure host.
 */
export class ConnectToAgent extends https.Agent {
  readonly #rules: readonly ConnectToRule[];

  constructor(rules: readonly ConnectToRule[], options: https.AgentOptions) {
    super(options);
    this.#rules = rules;
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? "");
    const port = Number(options.port ?? 443);
    const to = resolveConnectTo(this.#rules, host, port);
    // servername was set from the original host by the agent; keep it so, whatever the rule says
    // (an IP address is never sent as SNI, RFC 6066).
    const servername = options.servername || (isIP(host) ? undefined : host);
    return super.createConnection(
      { ...options, host: to.host, port: to.port, ...(servername ? { servername } : {}) },
      callback,
    );
  }
}
