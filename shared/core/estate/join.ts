import type { EstateCertificate } from "./estate.js";
import { vaultCertificateOf } from "./match.js";

/**
 * The vaults' certificates joined with what uses them. A consumer (an App Service certificate,
 * a gateway listener's certificate, a Front Door domain) whose Key Vault id names a listed vault
 * certificate takes the facts it lacks from it: dates, thumbprint, issuer, subject, names,
 * auto-renewal (Resource Graph gives only the secret id of a gateway's). A vault certificate
 * some consumer uses is then not listed again on its own: each place it is installed is one
 * entry. One nobody uses stays, bound nowhere.
 */
export function joinVaultCertificates(
  consumers: readonly EstateCertificate[],
  vaultCertificates: readonly EstateCertificate[],
): EstateCertificate[] {
  const keyOf = (id: string | undefined) => {
    const found = vaultCertificateOf(id);
    return found === undefined ? undefined : `${found.vault}/${found.name}`;
  };
  const byKey = new Map<string, EstateCertificate>();
  for (const certificate of vaultCertificates) {
    const key = keyOf(certificate.id);
    if (key !== undefined) byKey.set(key, certificate);
  }
  const used = new Set<string>();
  const joined = consumers.map((consumer) => {
    const key = keyOf(consumer.keyVaultId);
    const source = key === undefined ? undefined : byKey.get(key);
    if (key === undefined || source === undefined) return consumer;
    used.add(key);
    return withFacts(consumer, source);
  });
  const unused = vaultCertificates.filter((c) => {
    const key = keyOf(c.id);
    return key === undefined || !used.has(key);
  });
  return [...joined, ...unused];
}

function withFacts(consumer: EstateCertificate, source: EstateCertificate): EstateCertificate {
  const names = consumer.hostNames.length > 0 ? consumer : source;
  return {
    ...consumer,
    thumbprint: consumer.thumbprint ?? source.thumbprint,
    notBefore: consumer.notBefore ?? source.notBefore,
    expiresAt: consumer.expiresAt ?? source.expiresAt,
    issuer: consumer.issuer ?? source.issuer,
    subject: consumer.subject ?? source.subject,
    hostNames: names.hostNames,
    moreHostNames: names.moreHostNames,
    autoRenew: consumer.autoRenew ?? source.autoRenew,
    problems: [...consumer.problems, ...source.problems],
  };
}
