/** One CA whose ACME directory certsched asks for renewal information (RFC 9773). */
export interface AriDirectory {
  /**
   * The issuer's name as certificates carry it: matched, ignoring case, against the issuing
   * certificate's Organization (O) or Common Name (CN). "Let's Encrypt" matches R10, E5, ...
   */
  readonly issuer: string;
  /** The ACME directory URL, https. */
  readonly directoryUrl: string;
}

/** The settings ARI reads (parsed by app/config/ariSettings.ts, on first use). */
export interface AriSettings {
  /** CERTSCHED_ARI_DIRECTORIES; empty: ARI is off ("none"). Default: Let's Encrypt's. */
  readonly directories: readonly AriDirectory[];
  /** CERTSCHED_ARI_TIMEOUT, ms: one request to a CA (directory or renewalInfo). Default 10 s. */
  readonly timeoutMs: number;
}

/** Let's Encrypt's production directory, for the issuers it names (O=Let's Encrypt). */
export const LETS_ENCRYPT_DIRECTORY: AriDirectory = {
  issuer: "Let's Encrypt",
  directoryUrl: "https://acme-v02.api.letsencrypt.org/directory",
};

/**
 * The directory for a certificate's issuer, given as node's X509Certificate#issuer
 * ("C=US\nO=Let's Encrypt\nCN=R10") or as the TLS probe keeps it ("C=US, O=Let's Encrypt,
 * CN=R10"); undefined when no configured CA issued it.
 */
export function directoryFor(
  directories: readonly AriDirectory[],
  issuer: string,
): AriDirectory | undefined {
  // ", " splits only before another attribute: "O=Example, Inc." stays one name.
  const names = issuer
    .split(/\n|, (?=[A-Za-z][A-Za-z0-9.]*=)/)
    .map((line) => /^(O|CN)=(.*)$/.exec(line.trim())?.[2]?.trim().toLowerCase())
    .filter((name): name is string => name !== undefined && name !== "");
  return directories.find((d) => names.includes(d.issuer.toLowerCase()));
}
