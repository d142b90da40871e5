import type { CertificateRecord } from "../../core/certificate/records.js";
import type { RequestContext, ServiceOperations } from "../../core/ports/service.js";
import { type CallBudget, NO_TIME_TO_CONFIRM, unanswered } from "../../core/renewal/callBudget.js";
import { OutcomeUnknownError } from "../../lib/errors.js";

/** What Get Certificate showed of a renewal that got no answer: done, or why that is unknown. */
export type Confirmation = { readonly after: CertificateRecord } | { readonly why: string };

/**
 * A renewal that got no answer in time took effect if Get Certificate now shows the same
 * certificate (the id it had before the renewal was sent) with a later expiry. A record with
 * another id is another certificate, whatever its name and expiry: it says nothing
 * about this renewal. Needs the record from before; without it nothing can be confirmed.
 */
export async function renewedSince(
  client: Pick<ServiceOperations, "get">,
  certificateName: string,
  before: CertificateRecord | undefined,
  budget: CallBudget,
  context?: RequestContext,
): Promise<Confirmation> {
  if (!before) return { why: "it could not be looked up with Get Certificate" };
  if (budget.left() <= 0) return { why: NO_TIME_TO_CONFIRM };
  const notYet = { why: "Get Certificate does not show a new expiry yet" };
  let after: CertificateRecord;
  try {
    after = await client.get(certificateName, { budget, context });
  } catch {
    return budget.left() <= 0 ? { why: NO_TIME_TO_CONFIRM } : notYet;
  }
  if (after.id !== before.id) {
    return { why: `Get Certificate shows another certificate (id ${after.id}, not ${before.id})` };
  }
  return after.expiryDate.getTime() > before.expiryDate.getTime() ? { after } : notYet;
}

/** Words for a renewal Get Certificate confirmed after the service did not answer in time. */
export const confirmedMessage = (after: CertificateRecord) =>
  `the service did not answer in time, but Get Certificate shows ${after.certificateName} renewed (expires ${after.expiryDate.toISOString()})`;

/**
 * A renewal request that failed: when it got no answer in time (and `mayConfirm`), Get
 * Certificate may show it done `after` all; else the error to throw, an unanswered one as an
 * OutcomeUnknownError saying why it could not be confirmed.
 */
export async function afterFailure(
  client: Pick<ServiceOperations, "get">,
  certificateName: string,
  before: CertificateRecord | undefined,
  budget: CallBudget,
  error: unknown,
  mayConfirm: boolean,
  context?: RequestContext,
): Promise<{ readonly after: CertificateRecord } | { readonly thrown: unknown }> {
  if (!mayConfirm || !unanswered(error)) return { thrown: error };
  const shown = await renewedSince(client, certificateName, before, budget, context);
  if ("after" in shown) return { after: shown.after };
  return { thrown: new OutcomeUnknownError("renew", certificateName, shown.why, error) };
}
