import { randomUUID } from "node:crypto";
import type { CertificateRecord } from "../core/certificate/records.js";
import type { CertificateEvent, EventKind } from "../core/history/events.js";
import { rememberRenewed } from "../core/inventory/fromRecords.js";
import type { History } from "../core/ports/history.js";
import type { Inventory } from "../core/ports/inventory.js";
import type { Ledger, LedgerEntry } from "../core/ports/ledger.js";
import type { ServiceOperations } from "../core/ports/service.js";
import { blockedWord } from "../core/preflight/blocking.js";
import type { FailReason } from "../core/preflight/preflight.js";
import { withPurpose } from "../core/quota/requestContext.js";
import { withTrigger } from "../core/quota/requestTrigger.js";
import {
  type CallBudget,
  callBudget,
  lookupBudget,
  scheduleBudget,
} from "../core/renewal/callBudget.js";
import { claimAndSend } from "../core/renewal/claimAndSend.js";
import { decide } from "../core/renewal/decide.js";
import type { RenewedByName } from "../core/renewal/renewedByName.js";
import { acceptedDetail, MANUAL_REQUEST, type Requester } from "../core/renewal/requester.js";
import { ensureError, ValidationError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import { afterFailure, confirmedMessage } from "./steps/confirmRenewal.js";
import { recordBlockedRequest, rowGate } from "./steps/preflightGate.js";
import { recordHistory, withBefore } from "./steps/recordRun.js";
import { describe } from "./steps/renewOne.js";

/** What a v3 renewal by name needs of the service client. */
export type RenewByNameClient = Pick<ServiceOperations, "get" | "renew">;

/** What a recorded renewal by name needs (a Runtime has it all). */
export interface RenewByNameDeps {
  readonly client: RenewByNameClient;
  readonly ledger: Ledger;
  readonly history: History;
  readonly now: () => Date;
  readonly settings: {
    readonly renewalGraceMs: number;
    /** CERTSCHED_SCHEDULE_TIMEOUT, in ms: kept for the renewal when the first look-up is bounded. */
    readonly scheduleTimeoutMs?: number | undefined;
  };
  /**
   * The time the service calls may take in all (the HTTP front end's 230 s); default
   * callBudget() from the start of the renewal.
   */
  readonly budget?: CallBudget | undefined;
  /** Where the certificate is remembered for verification; a Runtime has it. */
  readonly inventory?: Inventory;
}

export type { RenewedByName } from "../core/renewal/renewedByName.js";

const MAY_ASK_AGAIN = "so the next sweep may ask for it again";

/**
 * A v3 renewal of a certificate known only by its name (the CLI's renew, the HTTP API's),
 * recorded like a sweep's. Get Certificate comes first: its id keys the ledger, its expiry
 * starts or continues the renewal episode, and its target lets a key-vault certificate's
 * renewal carry the vault token. The renewal then takes the sweep's steps (claim, sent, send,
 * answer: claimAndSend), so the next sweep sees it pending and does not order it again.
 *
 * A person asked, so neither a failed look-up nor a failing ledger stops the request: it goes
 * out as before, and `note` (and a log line) say the next sweep may ask again. A failure of the
 * request itself is recorded, then thrown as before.
 */
export function renewByName(
  deps: RenewByNameDeps,
  certificateName: string,
  requester: Requester,
  log: Logger,
  options: { readonly force?: boolean } = {},
): Promise<RenewedByName> {
  // Every request it sends (Get Certificate, the renewal) counts for whoever asked, and is a
  // renewal's: first claim on the request budget (an Operator asked for it).
  return withTrigger(requester.trigger, () =>
    withPurpose({ purpose: "renewal", runId: randomUUID() }, async () => {
      // The last preflight: before any request (Get Certificate included), as the sweep would.
      const at = deps.now();
      const { blockedBy, before } = await rowGate(deps.inventory, certificateName, at, log);
      if (blockedBy && !options.force) {
        const facts = { certificateName, requester, blockedBy, at };
        const message = await recordBlockedRequest(deps.history, log, facts);
        return { status: "blocked", message, target: undefined, recorded: false, blockedBy };
      }
      const renewed = await renew(deps, certificateName, requester, log, blockedBy, before);
      return blockedBy ? { ...renewed, forcedPast: blockedBy } : renewed;
    }),
  );
}

async function renew(
  deps: RenewByNameDeps,
  certificateName: string,
  requester: Requester,
  log: Logger,
  /** Forced past this reason of the last preflight: the history's request says so. */
  forcedPast?: FailReason,
  before?: Parameters<typeof withBefore>[1],
): Promise<RenewedByName> {
  const budget = deps.budget ?? callBudget();
  const lookup = lookupBudget(budget, deps.settings.scheduleTimeoutMs);
  const sendBudget = scheduleBudget(budget);
  const runId = randomUUID();
  const events: CertificateEvent[] = [];
  const event = (kind: EventKind, more: Partial<CertificateEvent> = {}) => {
    events.push({
      at: deps.now(),
      certificateName,
      event: kind,
      trigger: requester.trigger,
      runId,
      reason: MANUAL_REQUEST,
      ...more,
      ...withBefore(kind, before),
      ...(kind === "renewal-scheduled" ? acceptedDetail(requester, more.detail) : {}),
    });
  };
  const record = () => recordHistory(deps.history, log, events);

  let cert: CertificateRecord | undefined;
  let lookupFailure: string | undefined;
  try {
    cert = await deps.client.get(certificateName, { budget: lookup });
  } catch (error) {
    lookupFailure = redact(ensureError(error).message);
    log.warn(
      `certsched: could not look up ${certificateName} with Get Certificate, so its renewal is sent without the vault token (spec 2.2's two fields) and is not in the ledger, ${MAY_ASK_AGAIN}: ${lookupFailure}`,
    );
  }
  if (cert && deps.inventory)
    await rememberRenewed({ ...deps, inventory: deps.inventory }, log, cert);
  const known = cert ? { id: cert.id, expiryDate: cert.expiryDate } : {};
  const why = forcedPast ? `forced past ${blockedWord(forcedPast)}` : requester.because;
  event("manual-request", { by: requester.by, ...known, ...(why ? { detail: why } : {}) });

  /** Sends without the ledger; `why` says what kept it out. */
  const unrecorded = async (why: string | undefined): Promise<RenewedByName> => {
    const note = why ? `${why}, ${MAY_ASK_AGAIN}` : undefined;
    try {
      const message = await deps.client.renew(certificateName, {
        target: cert?.target,
        budget: sendBudget,
      });
      event("renewal-scheduled", { ...known, detail: redact(message) });
      return {
        status: "scheduled",
        message,
        target: cert?.target,
        recorded: false,
        ...(note ? { note } : {}),
      };
    } catch (error) {
      const failed = await afterFailure(deps.client, certificateName, cert, budget, error, true);
      if ("after" in failed) {
        const message = confirmedMessage(failed.after);
        event("renewal-scheduled", { ...known, detail: message });
        return {
          status: "scheduled",
          message,
          target: cert?.target,
          recorded: false,
          confirmedBy: "get-certificate",
          ...(note ? { note } : {}),
        };
      }
      const { thrown } = failed;
      const { detail, ...extra } = describe(thrown);
      event(extra.error === "UPSTREAM_TIMEOUT" ? "answer-unknown" : "failed", {
        ...known,
        detail,
        ...extra,
      });
      throw thrown;
    } finally {
      await record();
    }
  };

  if (!cert) return unrecorded(`it could not be looked up (${lookupFailure})`);
  if (deps.ledger.kind === "none") return unrecorded(undefined);

  const ledgerProblem = (error: unknown) => {
    const why = `the renewal ledger could not record it (${redact(ensureError(error).message)})`;
    log.warn(`certsched: renewing ${certificateName} all the same: ${why}, ${MAY_ASK_AGAIN}`);
    return why;
  };
  let entry: LedgerEntry | undefined;
  try {
    await deps.ledger.open();
    entry = await deps.ledger.read(cert.id);
  } catch (error) {
    if (error instanceof ValidationError) {
      // The sweep will not touch a row it cannot read (LedgerRowInvalid); a person asked.
      return unrecorded(
        `its ledger row is invalid (${redact(error.message)}); correct or delete the row`,
      );
    }
    return unrecorded(ledgerProblem(error));
  }

  const now = deps.now();
  const verdict = decide({
    expiryDate: cert.expiryDate,
    record: entry?.record,
    now,
    graceMs: deps.settings.renewalGraceMs,
  });
  let ledgerError: unknown;
  let unresolved = false;
  const target = cert.target;
  const sent = await claimAndSend({
    cert,
    entry,
    // Same expiry: the same episode goes on (its first request, its attempts).
    previous: verdict.reason === "NewRenewal" ? undefined : entry?.record,
    reason: MANUAL_REQUEST,
    stuck: verdict.action === "stuck",
    ledger: deps.ledger,
    claimedAt: now,
    now: deps.now,
    send: (sending) => deps.client.renew(certificateName, { target, budget: sendBudget, sending }),
    ledgerFailed: (error) => {
      ledgerError = error;
    },
    unresolved: () => {
      unresolved = true;
    },
    describe,
  });
  const outcome = { id: cert.id, expiryDate: cert.expiryDate };
  switch (sent.kind) {
    case "ledger-failed":
      // Nothing was sent: a person asked, so it goes out without the ledger.
      return unrecorded(ledgerProblem(ledgerError));
    case "conflict": {
      const message = `a sweep is renewing ${certificateName} right now; it was not asked for again`;
      event("skipped", { ...outcome, reason: "ClaimLost", detail: message });
      await record();
      return { status: "in-progress", message, target, recorded: true };
    }
    case "answered": {
      event(verdict.action === "stuck" ? "stuck" : "renewal-scheduled", {
        ...outcome,
        detail: redact(sent.message),
      });
      await record();
      if (!unresolved)
        return { status: "scheduled", message: sent.message, target, recorded: true };
      // Sent and accepted, but the answer's write did not land: the row still says "sent", so
      // the next sweeps wait out the grace, then ask again.
      const why =
        ledgerError === undefined
          ? "the renewal ledger changed under it before its answer was written"
          : ledgerProblem(ledgerError);
      return {
        status: "scheduled",
        message: sent.message,
        target,
        recorded: false,
        note: `${why}, ${MAY_ASK_AGAIN} after the grace (CERTSCHED_RENEWAL_GRACE)`,
      };
    }
    default: {
      // The ledger keeps "answer unknown" (the next sweeps wait out the grace); Get
      // Certificate may show it done already.
      const failed = await afterFailure(
        deps.client,
        certificateName,
        cert,
        budget,
        sent.error,
        sent.kind === "unanswered",
      );
      if ("after" in failed) {
        const message = confirmedMessage(failed.after);
        event("renewal-scheduled", { ...outcome, detail: message });
        await record();
        return {
          status: "scheduled",
          message,
          target,
          recorded: true,
          confirmedBy: "get-certificate",
        };
      }
      const { thrown } = failed;
      const { detail, ...extra } = describe(thrown);
      event(sent.kind === "unanswered" ? "answer-unknown" : "failed", {
        ...outcome,
        detail,
        ...extra,
      });
      await record();
      throw thrown;
    }
  }
}
