import { randomBytes, X509Certificate } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { KEY_VAULT_TARGET } from "../certificate.js";
import type { CertificateRenewed } from "../state.js";
import type { HostingSource, HostingVault, VaultRequest } from "./hosting.js";
import type { HostingCa, IssuedLeaf } from "./hostingCa.js";
import type { HostingFaultPlan } from "./hostingFaults.js";
import { VaultEventOutlet, type VaultEventsOptions } from "./vaultEvents.js";
import { keptEntries, type VaultEstate, VaultListState } from "./vaultList.js";
import {
  inVault,
  keyOf,
  nameInVault,
  noSuchCertificate,
  requestOf,
  VAULT_HOST_SUFFIX,
  VAULT_LABEL,
  type VaultCertificate,
  vaultOf,
  vaultServerCertificate,
} from "./vaultNames.js";
import {
  certificateBundle,
  certificateNotFound,
  certificatePath,
  sendJson,
  unauthorizedBody,
  type VaultCertificateVersion,
  vaultChallenge,
} from "./vaultProtocol.js";

export { VAULT_HOST_SUFFIX } from "./vaultNames.js";

/** The running vault: the public surface plus what the hosting side needs to drive it. */
export interface VaultEndpoint extends HostingVault {
  /** Installs the renewed version for these certificates when the vault is behind (fault cleared). */
  catchUp(certificateNames: readonly string[]): void;
  /**
   * The versions of a certificate (by its name in the vault) with their keys, oldest first, for
   * the hosting endpoint to serve (vaultServing.ts); a certificate created since start gets its
   * first version here, as at its first read.
   */
  served(keyVaultName: string, certificateName: string): readonly StoredVersion[];
  /** The vault's list: certificates the service does not keep, a forbidden vault, page size. */
  readonly estate: VaultEstate;
  close(): Promise<void>;
}

/** A version as kept here: its notAfter (whole seconds) known without signing it. */
export type StoredVersion = VaultCertificateVersion & {
  readonly notAfterSeconds: number;
  /** The certificate and its key, as a consumer (App Service, a gateway) would serve them. */
  readonly leaf: IssuedLeaf;
};

/**
 * The simulator's Key Vault: one HTTPS listener for every vault `{name}.vault.azure.net` its Key
 * Vault certificates name (told apart by Host header), speaking the certificates API the real
 * CertificateClient uses (vaultProtocol.ts). Its server certificate covers `*.vault.azure.net`
 * and comes from the hosting side's throwaway CA, so the one CA a sandbox user trusts covers both.
 *
 * - At start every Key Vault certificate of the simulator has a current version (notBefore /
 *   notAfter = the record's issueDate / expiryDate); a certificate created later gets one at the
 *   first read of it.
 * - A renewal that completes at the service installs a new version (notAfter = the new expiry),
 *   unless the certificate has the `keep-old-version` fault.
 * - Without a bearer token, or with one the simulator's identity provider did not issue for the
 *   vault resource, it answers 401 with the challenge, as the real vault does.
 */
export async function startVault(
  source: HostingSource,
  host: string,
  ca: HostingCa,
  faults: HostingFaultPlan,
  port = 0,
  events?: VaultEventsOptions,
): Promise<VaultEndpoint> {
  const versions = new Map<string, StoredVersion[]>();
  const outlet = new VaultEventOutlet(events);
  // The versions present at start were not "created" for anyone listening.
  let started = false;
  const requests: VaultRequest[] = [];
  const estate = new VaultListState();
  const challenge = vaultChallenge(source.vaultResource ?? "https://vault.azure.net");

  const install = (
    keyVaultName: string,
    name: string,
    rootDomain: string | null,
    dates: { issueDate: Date; expiryDate: Date },
    created = source.now(),
  ) => {
    const validity = { notBefore: dates.issueDate, notAfter: dates.expiryDate };
    let der: Buffer | undefined;
    let leaf: IssuedLeaf | undefined;
    const issued = () => {
      leaf ??= ca.issue([rootDomain ?? name], validity);
      return leaf;
    };
    const key = keyOf(keyVaultName, name);
    const list = versions.get(key) ?? [];
    const stored: StoredVersion = {
      version: randomBytes(16).toString("hex"),
      // Signed on first read, as the hosting endpoint's: a simulator with thousands of vault
      // certificates starts without signing each one.
      get der() {
        der ??= new X509Certificate(issued().cert).raw;
        return der;
      },
      get leaf() {
        return issued();
      },
      created: Math.floor(created.getTime() / 1000),
      notAfterSeconds: Math.floor(dates.expiryDate.getTime() / 1000),
    };
    list.push(stored);
    versions.set(key, list);
    if (started) {
      // Read after this settle is done (a renewal installs from inside one): where it lives.
      void outlet.emit(() => {
        const record = recordOf(keyVaultName, name);
        return {
          kind: "new-version",
          vaultName: keyVaultName,
          certificateName: name,
          version: stored.version,
          notBefore: dates.issueDate,
          notAfter: dates.expiryDate,
          subscriptionId: record?.cloudSubscriptionId,
          resourceGroup: record?.dnsZoneResourceGroup,
        };
      });
    }
    return stored;
  };
  const installRecord = (cert: VaultCertificate) =>
    install(cert.keyVaultName, nameInVault(cert), cert.rootDomain, cert);

  // At start: each Key Vault certificate as the service holds it now.
  for (const cert of source.certificates()) if (inVault(cert)) installRecord(cert);
  started = true;

  const stopListening = source.onRenewed((event: CertificateRenewed) => {
    if (event.target !== KEY_VAULT_TARGET || !event.keyVaultName) return;
    if (faults.has(event.certificateName, "keep-old-version")) return;
    install(event.keyVaultName, nameInVault(event), event.rootDomain, event);
  });

  /** The record behind `{vault}/{name}`, after completing what is due on the sim clock. */
  const recordOf = (vault: string, name: string): VaultCertificate | undefined =>
    source
      .certificates()
      .filter(inVault)
      .find((c) => keyOf(c.keyVaultName, nameInVault(c)) === keyOf(vault, name));

  const served = (keyVaultName: string, certificateName: string) => {
    const key = keyOf(keyVaultName, certificateName);
    const record = recordOf(keyVaultName, certificateName);
    if (record && !versions.has(key)) installRecord(record);
    return versions.get(key) ?? [];
  };

  const serve = (req: IncomingMessage, res: ServerResponse, vault: string | undefined) => {
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? "")?.[1];
    const refusal =
      bearer === undefined ? "missing" : source.vaultToken ? source.vaultToken(bearer) : undefined;
    if (refusal !== undefined) {
      sendJson(res, 401, unauthorizedBody(bearer !== undefined), {
        "www-authenticate": challenge,
      });
      return;
    }
    const listed = estate.answer(req, vault, () =>
      keptEntries(source.certificates().filter(inVault), vault ?? "", served),
    );
    if (listed) return sendJson(res, listed.status, listed.body);
    const wanted = certificatePath(req.method, req.url);
    if (wanted === undefined) {
      sendJson(res, 405, {
        error: {
          code: "BadParameter",
          message: "The simulator's vault only serves GET /certificates/<name>[/<version>].",
        },
      });
      return;
    }
    const record = vault === undefined ? undefined : recordOf(vault, wanted.name);
    const key = vault === undefined ? "" : keyOf(vault, wanted.name);
    // Created (or added) since start: its first version is the one the service issued.
    if (record && !versions.has(key)) installRecord(record);
    const list = versions.get(key) ?? [];
    const found = wanted.version ? list.find((v) => v.version === wanted.version) : list.at(-1);
    if (vault === undefined || found === undefined) {
      sendJson(res, 404, certificateNotFound(wanted.name));
      return;
    }
    sendJson(
      res,
      200,
      certificateBundle(`https://${vault}.${VAULT_HOST_SUFFIX}`, wanted.name, found),
    );
  };

  const serverCert = vaultServerCertificate(ca);
  const server = createServer(serverCert, (req, res) => {
    req.resume();
    const vault = vaultOf(req);
    requests.push(requestOf(req));
    try {
      serve(req, res, vault);
    } catch (error) {
      // A bug in the simulator must be loud in the response, not a hang.
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 500, {
        error: { code: "InternalError", message: `Simulator error: ${message}` },
      });
    }
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const connectHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    host,
    port: bound,
    url: (keyVaultName) => `https://${keyVaultName.toLowerCase()}.${VAULT_HOST_SUFFIX}`,
    connectTo: () => {
      const names = new Set(
        source
          .certificates()
          .filter(inVault)
          .map((c) => c.keyVaultName.toLowerCase())
          .concat(estate.vaults())
          .filter((n) => VAULT_LABEL.test(n)),
      );
      return [...names]
        .sort()
        .map((n) => `${n}.${VAULT_HOST_SUFFIX}:443:${connectHost}:${bound}`)
        .join(",");
    },
    requests,
    versions: (keyVaultName, certificateName) =>
      versions.get(keyOf(keyVaultName, certificateName)) ?? [],
    stageVersions: (keyVaultName, certificateName, staged) => {
      const record = recordOf(keyVaultName, certificateName);
      if (record === undefined) throw noSuchCertificate(keyVaultName, certificateName);
      versions.set(keyOf(keyVaultName, certificateName), []);
      for (const v of staged) {
        const dates = { issueDate: v.notBefore, expiryDate: v.notAfter };
        install(keyVaultName, certificateName, record.rootDomain, dates, v.created);
      }
    },
    addVersion: (keyVaultName, certificateName, dates) => {
      const record = recordOf(keyVaultName, certificateName);
      if (record === undefined) throw noSuchCertificate(keyVaultName, certificateName);
      if (!versions.has(keyOf(keyVaultName, certificateName))) installRecord(record);
      const { notBefore: issueDate, notAfter: expiryDate } = dates;
      return install(keyVaultName, certificateName, record.rootDomain, { issueDate, expiryDate });
    },
    setEvents: (target) => outlet.set(target),
    emitExpiry: (keyVaultName, certificateName, kind) => {
      const record = recordOf(keyVaultName, certificateName);
      const current = versions.get(keyOf(keyVaultName, certificateName))?.at(-1);
      if (record === undefined || current === undefined) {
        throw noSuchCertificate(keyVaultName, certificateName);
      }
      return outlet.emit({
        kind,
        vaultName: keyVaultName,
        certificateName,
        version: current.version,
        notBefore: record.issueDate,
        notAfter: new Date(current.notAfterSeconds * 1000),
        subscriptionId: record.cloudSubscriptionId,
        resourceGroup: record.dnsZoneResourceGroup,
      });
    },
    deliveries: outlet.deliveries,
    eventsSettled: () => outlet.settled(),
    served,
    estate,
    catchUp: (certificateNames) => {
      for (const cert of source.certificates().filter(inVault)) {
        if (!certificateNames.includes(cert.certificateName)) continue;
        const current = versions.get(keyOf(cert.keyVaultName, nameInVault(cert)))?.at(-1);
        // X.509 keeps whole seconds: the current version is the record's when they agree to it.
        if (current?.notAfterSeconds !== Math.floor(cert.expiryDate.getTime() / 1000)) {
          installRecord(cert);
        }
      }
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        stopListening();
        server.close((error) => (error ? reject(error) : resolve()));
        // The SDK keeps connections alive: drop them, or close() waits for their idle timeout.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
