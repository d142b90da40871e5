import { randomUUID } from "node:crypto";
import type { CreateCertificateInput } from "../core/certificate/createRequest.js";
import { parseServiceDate } from "../core/certificate/dates.js";
import type { CertificateRecord } from "../core/certificate/records.js";
import type { RequestContext, ServiceOperations } from "../core/ports/service.js";
import {
  type CallBudget,
  callBudget,
  NO_TIME_TO_CONFIRM,
  scheduleBudget,
  unanswered,
} from "../core/renewal/callBudget.js";
import { ensureError, OutcomeUnknownError } from "../lib/errors.js";
import { redact } from "../lib/redact/redact.js";

/** A create's outcome: scheduled, and whether Get Certificate had to confirm it. */
export interface CreateOutcome {
  readonly status: "scheduled";
  readonly message: string;
  /** Set when the service did not answer in time and Get Certificate showed the certificate. */
  readonly confirmedBy?: "get-certificate";
}

/** What a confirmed create needs of the service client. */
export type CreateClient = Pick<ServiceOperations, "create" | "get">;

/**
 * When the record was issued, if the service says so in a date it writes (spec 2.3); issueDate
 * is not a field certsched validates, so anything else is "not known".
 */
function issuedAt(record: CertificateRecord): Date | undefined {
  return typeof record.issueDate === "string" ? parseServiceDate(record.issueDate) : undefined;
}

/**
 * Schedules a creation; when the service does not answer in time, asks Get Certificate. Only a
 * record of that name issued at or after the request was sent shows the creation took effect: a
 * certificate of that name issued before is an older one (a create for an existing name), and
 * says nothing about this request. Anything else throws OutcomeUnknownError; any other failure
 * is thrown as it is. No allowance for clock skew: a skewed clock can only make a real creation
 * read "unknown", never an unknown one read "scheduled".
 */
export function createConfirmed(
  client: CreateClient,
  input: CreateCertificateInput,
  now: () => Date,
  budget: CallBudget = callBudget(),
): Promise<CreateOutcome> {
  // The create and its confirming look-up are a renewal's requests: first claim on the budget.
  const context: RequestContext = { purpose: "renewal", runId: randomUUID() };
  return confirmCreate(client, input, now, budget, context);
}

async function confirmCreate(
  client: CreateClient,
  input: CreateCertificateInput,
  now: () => Date,
  budget: CallBudget,
  context: RequestContext,
): Promise<CreateOutcome> {
  const sentAt = now();
  try {
    return {
      status: "scheduled",
      message: await client.create(input, { budget: scheduleBudget(budget), context }),
    };
  } catch (error) {
    if (!unanswered(error)) throw error;
    const name = input.certificateName;
    if (budget.left() <= 0)
      throw new OutcomeUnknownError("create", name, NO_TIME_TO_CONFIRM, error);
    let found: CertificateRecord;
    try {
      found = await client.get(name, { budget, context });
    } catch (lookup) {
      // A certificate becomes retrievable a few minutes after it is scheduled (spec 3): "not
      // found" right now proves nothing either way.
      throw new OutcomeUnknownError(
        "create",
        name,
        `Get Certificate does not show it yet (${redact(ensureError(lookup).message)})`,
        error,
      );
    }
    const issued = issuedAt(found);
    if (issued === undefined || issued.getTime() < sentAt.getTime()) {
      const when = issued ? `issued ${issued.toISOString()}, before this request` : "no issue date";
      throw new OutcomeUnknownError(
        "create",
        name,
        `Get Certificate shows only an earlier certificate of that name (id ${found.id}, ${when})`,
        error,
      );
    }
    return {
      status: "scheduled",
      message: `the service did not answer in time, but Get Certificate shows ${name} issued ${issued.toISOString()} (id ${found.id}, ${found.target}): its creation was scheduled`,
      confirmedBy: "get-certificate",
    };
  }
}
