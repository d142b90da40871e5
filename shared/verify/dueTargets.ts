import { APP_SERVICE, KEY_VAULT } from "../schemas/fields.js";
import type { CertificateRecord } from "../schemas/records.js";
import { parseEndpoint } from "./endpoint.js";
import type { VerifyTarget } from "./verifyDomains.js";

/** A listed certificate that is not checked over TLS, and why (for a note beside the results). */
export interface NotChecked {
  readonly certificateName: string;
  readonly reason: string;
}

export interface DuePlan {
  readonly targets: VerifyTarget[];
  readonly notChecked: NotChecked[];
}

/**
 * What to probe for the service's due list: each App Service certificate's rootDomain, once per
 * domain (a domain serves one certificate, whichever record it came from). A Key Vault
 * certificate is judged in its vault, not over TLS, and that check is not built yet.
 */
export function dueListTargets(records: readonly CertificateRecord[]): DuePlan {
  const targets = new Map<string, VerifyTarget>();
  const notChecked: NotChecked[] = [];
  for (const record of records) {
    const name = record.certificateName;
    if (record.target === KEY_VAULT) {
      notChecked.push({
        certificateName: name,
        reason: "a Key Vault certificate is checked in its vault, which certsched does not do yet",
      });
      continue;
    }
    if (record.target !== APP_SERVICE) {
      notChecked.push({
        certificateName: name,
        reason: `target "${record.target}" has no endpoint certsched knows`,
      });
      continue;
    }
    if (record.rootDomain === null || record.rootDomain === undefined) {
      notChecked.push({ certificateName: name, reason: "the service lists no rootDomain for it" });
      continue;
    }
    const endpoint = parseEndpoint(record.rootDomain);
    if (typeof endpoint === "string") {
      notChecked.push({ certificateName: name, reason: `its rootDomain ${endpoint}` });
      continue;
    }
    if (!targets.has(endpoint.label))
      targets.set(endpoint.label, { endpoint, certificateName: name });
  }
  return { targets: [...targets.values()], notChecked };
}
