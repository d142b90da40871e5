import { DAY_MS } from "../shared/lib/time.js";
import { type AcmeSimulator, startAcme } from "./acme/acmeServer.js";
import { HOSTING_CA_NAME, HostingCa } from "./hosting/hostingCa.js";

/**
 * The sandbox's CA word (ARI): sim/acme over TLS (its certificate from a throwaway CA
 * the sandbox's process trusts through `caPem`, as for its ARM), named in
 * CERTSCHED_ARI_DIRECTORIES as the directory of the simulators' hosting CA. It knows no window
 * until the sandbox stages one (renewNow for one certificate that is not due).
 */
export interface SandboxAri {
  readonly acme: AcmeSimulator;
  /** The CA of the ACME server's certificate: the sandbox's Seams.ariCa. */
  readonly caPem: string;
  /** CERTSCHED_ARI_DIRECTORIES (the hosting CA's O to sim/acme) and a short timeout. */
  readonly settings: Record<string, string>;
  close(): Promise<void>;
}

/** The explanation the staged window carries, as a CA would link its incident page. */
export const SANDBOX_ARI_EXPLANATION = "https://ca.example/sandbox/revocation-incident";

export async function startSandboxAri(): Promise<SandboxAri> {
  const ca = await HostingCa.create(new Date());
  const now = Date.now();
  const leaf = ca.issue(["127.0.0.1", "localhost"], {
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 30 * DAY_MS),
  });
  const acme = await startAcme(leaf);
  return {
    acme,
    caPem: ca.certPem,
    settings: {
      CERTSCHED_ARI_DIRECTORIES: `${HOSTING_CA_NAME.organizationName}=${acme.directoryUrl}`,
      CERTSCHED_ARI_TIMEOUT: "2s",
    },
    close: () => acme.close(),
  };
}
