import { randomUUID } from "node:crypto";
import { parseServiceDate } from "../dates.js";
import { ensureError, UpstreamError } from "../errors.js";
import { withPurpose } from "../quota/requestPurpose.js";
import { redact } from "../redact.js";
import type { CreateCertificateInput } from "../schemas/createRequest.js";
import type { CertificateRecord } from "../schemas/records.js";

/**
 * A v3 create or renew that got no answer within CERTSCHED_SCHEDULE_TIMEOUT may still have been
 * scheduled: the service acts on the request and answers late (the vendor's 8.0 client waits up
 * to 10 minutes). Such a call is "unknown" until Get Certificate shows it took effect; certsched
 * never reports it failed, and never suggests sending it again.
 */

/** The platform's front end drops every HTTP request after 230 s, whatever functionTimeout says. */
export const FRONT_END_LIMIT_MS = 230_000;

/**
 * How long, in ms, the service calls of one create or renew by name may take in all, from the
 * first: the rest of the 230 s is for tokens, storage and the answer. The schedule call alone may
 * take 120 s (CERTSCHED_SCHEDULE_TIMEOUT) and, after a 429, up to 200 s; the Get Certificate
 * that confirms it (30 s a try, three retries) would add up to 135 s more. Without a shared
 * budget the function answered after the front end had already dropped the request.
 */
export const CALLS_WITHIN_MS = 215_000;

/** Kept, in ms, for the Get Certificate that confirms an unanswered create or renew. */
export const CONFIRM_RESERVE_MS = 15_000;

/** What is left of a request's time for service calls, in ms (negative once spent). */
export interface CallBudget {
  left(): number;
}

/**
 * A budget of `withinMs` from now, on the monotonic clock: the front end cuts by real time,
 * whatever the runtime's (injectable) clock says.
 */
export function callBudget(
  withinMs: number = CALLS_WITHIN_MS,
  clock: () => number = () => performance.now(),
): CallBudget {
  const until = clock() + withinMs;
  return { left: () => until - clock() };
}

/** The budget a schedule call may use: what is left, less the confirming Get's reserve. */
export function scheduleBudget(budget: CallBudget): CallBudget {
  return { left: () => budget.left() - CONFIRM_RESERVE_MS };
}

/** Why an unanswered call could not be looked up: no time left before the front end. */
export const NO_TIME_TO_CONFIRM = `no time was left to ask Get Certificate within the HTTP front end's ${FRONT_END_LIMIT_MS / 1000} s`;

/** Whether a create or renew failed by getting no answer in time (it may have been scheduled). */
export function unanswered(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.code === "UPSTREAM_TIMEOUT";
}

/** How a person finds out, in the words every surface uses (CLI, HTTP API, history). */
export function checkWith(certificateName: string): string {
  return `unknown: check with certsched get ${certificateName} (GET /api/certificates/${encodeURIComponent(certificateName)}) in a few minutes`;
}

/**
 * No answer in time, and Get Certificate could not show that it took effect. Code
 * UPSTREAM_TIMEOUT (the HTTP API answers 504), with the way to find out in the message.
 */
export class OutcomeUnknownError extends UpstreamError {
  readonly certificateName: string;

  constructor(
    operation: "create" | "renew",
    certificateName: string,
    why: string,
    cause: UpstreamError,
  ) {
    const what = operation === "create" ? "Creation" : "Renewal";
    super(
      "UPSTREAM_TIMEOUT",
      operation,
      `${what} of ${certificateName}: the service did not answer in time (${cause.message}), and ${why}: it may still have been scheduled; ${checkWith(certificateName)}`,
      { retriable: false, cause },
    );
    this.name = "OutcomeUnknownError";
    this.certificateName = certificateName;
  }
}

/** A create's outcome: scheduled, and whether Get Certificate had to confirm it. */
export interface CreateOutcome {
  readonly status: "scheduled";
  readonly message: string;
  /** Set when the service did not answer in time and Get Certificate showed the certificate. */
  readonly confirmedBy?: "get-certificate";
}

/** Options of a service call made within a request's time. */
export interface WithinOptions {
  /** The call, retries included, ends within `budget.left()`; unset: the client's own limits. */
  readonly budget?: CallBudget | undefined;
}

/** What a confirmed create needs of the service client. */
export interface CreateClient {
  create(input: CreateCertificateInput, options?: WithinOptions): Promise<string>;
  get(certificateName: string, options?: WithinOptions): Promise<CertificateRecord>;
}

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
  return withPurpose({ purpose: "renewal", runId: randomUUID() }, () =>
    confirmCreate(client, input, now, budget),
  );
}

async function confirmCreate(
  client: CreateClient,
  input: CreateCertificateInput,
  now: () => Date,
  budget: CallBudget,
): Promise<CreateOutcome> {
  const sentAt = now();
  try {
    return {
      status: "scheduled",
      message: await client.create(input, { budget: scheduleBudget(budget) }),
    };
  } catch (error) {
    if (!unanswered(error)) throw error;
    const name = input.certificateName;
    if (budget.left() <= 0)
      throw new OutcomeUnknownError("create", name, NO_TIME_TO_CONFIRM, error);
    let found: CertificateRecord;
    try {
      found = await client.get(name, { budget });
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
