import type { CertificatePolicy, RenewalCalendar } from "../windows/calendar.js";
import { AccountCalendar } from "../windows/timing.js";

/**
 * The policy that disables a certificate, when its account's calendar has one for it. Windows
 * and freezes never hold a renewal a person asked for by name: they keep the sweep (and ARI)
 * to the hours people chose, and someone asking now is such a choice. A disabled certificate is
 * refused all the same, unless forced.
 */
export function disabledBy(
  where: {
    readonly settings: { readonly renewalCalendar?: RenewalCalendar | undefined };
    readonly account?: string | undefined;
  },
  certificateName: string,
): CertificatePolicy | undefined {
  const declared = where.settings.renewalCalendar;
  if (!declared || declared.policies.length === 0) return undefined;
  const calendar = new AccountCalendar(declared, where.account ?? "default");
  const policy = calendar.policyOf(certificateName);
  return policy?.policy === "disabled" ? policy : undefined;
}

/** The words of a renewal refused by the certificate's policy. */
export function disabledDetail(policy: Pick<CertificatePolicy, "label">): string {
  return `disabled by its certificate policy (${policy.label}): it is never renewed; nothing was sent`;
}
