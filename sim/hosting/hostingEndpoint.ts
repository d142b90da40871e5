import type { AddressInfo, Socket } from "node:net";
import tls from "node:tls";
import { validityLimitDays } from "../../shared/core/verification/browserChecks.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { APP_SERVICE_TARGET, type SimCertificate } from "../certificate.js";
import type { CertificateRenewed } from "../state.js";
import { startChallengeServer } from "./challengeServer.js";
import type { Hosting, HostingOptions, HostingSource } from "./hosting.js";
import { HostingCa, type LeafStyle, type Validity } from "./hostingCa.js";
import { type HostingFault, HostingFaultPlan, WRONG_NAME } from "./hostingFaults.js";
import { startVault } from "./vault.js";
import { VaultLagPlan, vaultSelector } from "./vaultServing.js";

/** A certificate bound on the endpoint; its bytes are made on first use, then kept. */
interface Binding {
  readonly name: string;
  readonly validity: Validity;
  /** By the faults that shape the certificate (name, chain, key, digest, dates). */
  readonly contexts: Map<string, tls.SecureContext>;
}

/** The faults that shape the certificate served, in a fixed order (a context's key). */
const SHAPING: readonly HostingFault[] = [
  "wrong-name",
  "with-intermediate",
  "omit-intermediate",
  "weak-key",
  "sha1-signature",
  "too-long",
];

/** The earliest notBefore with this notAfter that is one day over the limit in force on it. */
function overLong(validity: Validity): Validity {
  for (const days of [47, 100, 200, 398]) {
    const notBefore = new Date(validity.notAfter.getTime() - (days + 1) * DAY_MS);
    if (validityLimitDays(notBefore) === days) return { notBefore, notAfter: validity.notAfter };
  }
  return validity;
}

/** The running endpoint: the public surface plus close(), which the simulator calls. */
export interface HostingEndpoint extends Hosting {
  close(): Promise<void>;
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, "");

function servesName(cert: SimCertificate): cert is SimCertificate & { rootDomain: string } {
  return cert.target === APP_SERVICE_TARGET && cert.rootDomain !== null;
}

/** Starts the TLS endpoint on `host` (the simulator's), a free port unless options say one. */
export async function startHosting(
  source: HostingSource,
  host: string,
  options: HostingOptions,
): Promise<HostingEndpoint> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Simulator option hosting.port must be a number in 0..65535, got ${port}`);
  }
  const ca = await HostingCa.create(source.now());
  const faults = new HostingFaultPlan();
  for (const [name, value] of Object.entries(options.faults ?? {})) {
    const list: readonly HostingFault[] = typeof value === "string" ? [value] : value;
    for (const fault of list) faults.inject(name, fault);
  }
  const bindings = new Map<string, Binding>();
  const lags = new VaultLagPlan(options.vaultLag);
  let vaultSelect: ReturnType<typeof vaultSelector> | undefined;

  const bind = (cert: { certificateName: string; rootDomain: string } & DatesOf) => {
    bindings.set(cert.certificateName, {
      name: normalize(cert.rootDomain),
      validity: { notBefore: new Date(cert.issueDate), notAfter: new Date(cert.expiryDate) },
      contexts: new Map(),
    });
  };
  // Bound at start: each App Service certificate as the service holds it now.
  for (const cert of source.certificates()) if (servesName(cert)) bind(cert);

  const stopListening = source.onRenewed((event: CertificateRenewed) => {
    if (event.target !== APP_SERVICE_TARGET || event.rootDomain === null) return;
    if (faults.has(event.certificateName, "keep-old-certificate")) return;
    bind({ ...event, rootDomain: event.rootDomain });
  });

  const contextFor = (binding: Binding, certificateName: string): tls.SecureContext => {
    const shaping = SHAPING.filter((f) => faults.has(certificateName, f));
    const key = shaping.join(",");
    let context = binding.contexts.get(key);
    if (context === undefined) {
      const has = (f: HostingFault) => shaping.includes(f);
      const style: LeafStyle = {
        chain: has("omit-intermediate")
          ? "omit-intermediate"
          : has("with-intermediate")
            ? "intermediate"
            : "direct",
        weakKey: has("weak-key"),
        sha1: has("sha1-signature"),
      };
      const names = [has("wrong-name") ? WRONG_NAME : binding.name];
      const validity = has("too-long") ? overLong(binding.validity) : binding.validity;
      context = tls.createSecureContext({
        ...ca.issue(names, validity, style),
        // OpenSSL refuses to load a SHA-1 or 1024-bit certificate at Node's default level.
        ...(style.weakKey || style.sha1 ? { ciphers: "DEFAULT@SECLEVEL=0" } : {}),
      });
      binding.contexts.set(key, context);
    }
    return context;
  };

  /** The context for an SNI name; undefined fails the handshake; an Error resets the socket. */
  const select = (servername: string): tls.SecureContext | Error | undefined => {
    const name = normalize(servername);
    // Reading the certificates completes what is due on the sim clock (and fires onRenewed).
    const cert = source
      .certificates()
      .filter(servesName)
      .find((c) => normalize(c.rootDomain) === name);
    if (cert === undefined) return vaultSelect?.(servername);
    if (faults.has(cert.certificateName, "unreachable")) {
      return new Error(`hosting fault: ${cert.certificateName} is unreachable`);
    }
    // Created (or added) since start: bound as the service issued it.
    if (!bindings.has(cert.certificateName)) bind(cert);
    const binding = bindings.get(cert.certificateName) as Binding;
    return contextFor(binding, cert.certificateName);
  };

  // No default certificate: a handshake without SNI, or for a name nobody hosts, fails.
  const server = tls.createServer({
    // The connection keeps the first context's security level when SNI switches context: at
    // Node's default, a SHA-1 certificate (the sha1-signature fault) could not be served.
    ciphers: "DEFAULT@SECLEVEL=0",
    SNICallback: (servername, callback) => {
      try {
        const selected = select(servername);
        // An error makes Node drop the connection before the handshake: the client sees a reset.
        if (selected instanceof Error) callback(selected, undefined);
        else callback(null, selected);
      } catch (error) {
        // A bug here, not a staged fault: the client sees a reset, so say why where it shows.
        const cause = error instanceof Error ? error : new Error(String(error));
        process.emitWarning(`certsched simulator hosting endpoint: ${cause.message}`);
        callback(cause, undefined);
      }
    },
  });
  // A failed handshake is what a fault or an unknown name asks for: nothing to report.
  server.on("tlsClientError", () => {});
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  // The vault shares the CA and the faults; a vault that cannot start stops the endpoint too.
  const vault = await startVault(source, host, ca, faults, 0, options.events).catch(
    async (error: unknown) => {
      stopListening();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    },
  );
  vaultSelect = vaultSelector(source, vault, lags, faults);
  const challenge = await startChallengeServer(source, host).catch(async (error: unknown) => {
    stopListening();
    await Promise.all([
      new Promise<void>((resolve) => server.close(() => resolve())),
      vault.close(),
    ]);
    throw error;
  });
  const connectHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    host,
    port: bound,
    caPem: ca.certPem,
    connectTo: `::${connectHost}:${bound}`,
    vault,
    challenge,
    inject: (certificateName, fault) => faults.inject(certificateName, fault),
    setVaultLag: (certificateName, lagMs) => lags.set(certificateName, lagMs),
    clearFaults: (certificateName) => {
      const cleared = faults.clear(certificateName);
      vault.catchUp(cleared);
      // The binding is fixed: what the service holds now is served from now on.
      const current = source.certificates();
      for (const name of cleared) {
        const cert = current.find((c) => c.certificateName === name);
        if (cert && servesName(cert)) {
          const bound = bindings.get(name);
          if (bound?.validity.notAfter.getTime() !== cert.expiryDate.getTime()) bind(cert);
        }
      }
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        stopListening();
        const stopped = new Promise<void>((done, failed) =>
          server.close((error) => (error ? failed(error) : done())),
        );
        // tls.Server has no closeAllConnections: end the sockets it still holds.
        for (const socket of sockets) socket.destroy();
        Promise.all([stopped, vault.close(), challenge.close()]).then(() => resolve(), reject);
      });
      return closing;
    },
  };
}

type DatesOf = { issueDate: Date; expiryDate: Date };
