import { randomUUID } from "node:crypto";
import type { CertificateRecord } from "../core/certificate/records.js";
import type { CertificateEvent, EventKind } from "../core/history/events.js";
import { rememberRenewed } from "../core/inventory/fromRecords.js";
import type { History } from "../core/ports/history.js";
import type { Inventory } from "../core/ports/inventory.js";
import type { Ledger, LedgerEntry } from "../core/ports/ledger.js";
import type { RequestContext, ServiceOperations } from "../core/ports/service.js";
import { blockedWord } from "../core/preflight/blocking.js";
import type { FailReason } from "../core/preflight/preflight.js";
import {
  type CallBudget,
  callBudget,
  lookupBudget,
  scheduleBudget,
} from "../core/renewal/callBudget.js";
import { claimAndSend } from "../core/renewal/claimAndSend.js";
import { decide } from "../core/renewal/decide.js";
import { disabledBy, disabledDetail } from "../core/renewal/policyGate.js";
import type { RenewedByName } from "../core/renewal/renewedByName.js";
import { acceptedDetail, MANUAL_REQUEST, type Requester } from "../core/renewal/requester.js";
import type { CertificatePolicy, RenewalCalendar } from "../core/windows/calendar.js";
import { ensureError, ValidationError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import { afterFailure, confirmedMessage } from "./steps/confirmRenewal.js";
import { recordBlockedRequest, rowGate } from "./steps/preflightGate.js";
import { recordHistory, recordRefusedRequest, withBefore } from "./steps/recordRun.js";
import { describe } from "./sweep/renewOne.js";

/** What a v3 renewal by name needs of the service client. */
export type RenewByNameClient = Pick<ServiceOperations, "get" | "renew">;

/** What a recorded renewal by name needs (a AccountPorts has it all). */
export interface RenewByNamePorts {
  readonly client: RenewByNameClient;
  readonly ledger: Ledger;
  readonly history: History;
  readonly now: () => Date;
  readonly settings: {
    readonly renewalGraceMs: number;
    /** CERTSCHED_SCHEDULE_TIMEOUT, in ms: kept for the renewal when the first look-up is bounded. */
    readonly scheduleTimeoutMs?: number | undefined;
    /**
     * The account's renewal calendar: only its certificate policy applies here (a person asked,
     * so windows and freezes do not hold the request), a `disabled` certificate is refused.
     */
    readonly renewalCalendar?: RenewalCalendar | undefined;
  };
  /** The account (its calendar's); default "default". */
  readonly account?: string;
  /**
   * The time the service calls may take in all (the HTTP front end's 230 s); default
   * callBudget() from the start of the renewal.
   */
  readonly budget?: CallBudget | undefined;
  /** Where the certificate is remembered for verification; a AccountPorts has it. */
  readonly inventory?: Inventory;
}

export type { RenewedByName } from "../core/renewal/renewedByName.js";

const MAY_ASK_AGAIN = "so the next sweep may ask for it again";

/**
 * A v3 renewal of a certificate known only by its name (the CLI's renew, the HTTP API's, ARI),
 * recorded like a sweep's. Get Certificate comes first: its id keys the ledger, its expiry
 * starts or continues the renewal episode, and its target lets a key-vault certificate's
 * renewal carry the vault token. The renewal then takes the sweep's steps (decide, then claim,
 * sent, send, answer: claimAndSend), so the next sweep sees it pending and does not order it
 * again.
 *
 * A person asked, so neither a failed look-up nor a failing ledger stops the request: it goes
 * out as before, and `note` (and a log line) say the next sweep may ask again. A failure of the
 * request itself is recorded, then thrown as before.
 */
export async function renewByName(
  deps: RenewByNamePorts,
  certificateName: string,
  requester: Requester,
  log: Logger,
  options: { readonly force?: boolean } = {},
): Promise<RenewedByName> {
  // Every request it sends (Get Certificate, the renewal) counts for whoever asked, and is a
  // renewal's: first claim on the request budget (an Operator asked for it).
  const context: RequestContext = {
    purpose: "renewal",
    trigger: requester.trigger,
    runId: randomUUID(),
  };
  // Before any request (Get Certificate included), as the sweep would.
  const at = deps.now();
  const disabled = disabledBy(deps, certificateName);
  if (disabled && !options.force) {
    const facts = { certificateName, requester, policy: disabled, at };
    const message = await recordDisabledRequest(deps.history, log, facts);
    return {
      status: "disabled",
      message,
      target: undefined,
      recorded: false,
      policy: disabled.label,
    };
  }
  const { blockedBy, before } = await rowGate(deps.inventory, certificateName, at, log);
  if (blockedBy && !options.force) {
    const facts = { certificateName, requester, blockedBy, at };
    const message = await recordBlockedRequest(deps.history, log, facts);
    return { status: "blocked", message, target: undefined, recorded: false, blockedBy };
  }
  const renewal = new ByNameRenewal(deps, certificateName, requester, log, context, before);
  const renewed = await renewal.run(blockedBy, disabled);
  return {
    ...renewed,
    ...(blockedBy ? { forcedPast: blockedBy } : {}),
    ...(disabled ? { policy: disabled.label } : {}),
  };
}

/** A renewal by name refused by the certificate's policy, in the history; returns the words. */
function recordDisabledRequest(
  history: History,
  log: Logger,
  request: { certificateName: string; requester: Requester; policy: CertificatePolicy; at: Date },
): Promise<string> {
  const { policy, ...asked } = request;
  const detail = disabledDetail(policy);
  return recordRefusedRequest(history, log, {
    ...asked,
    event: "disabled",
    reason: "PolicyDisabled",
    detail,
  });
}

/** What a failed request's description gives the history event. */
type Described = ReturnType<typeof describe>;

/**
 * One renewal by name, in its stages: look the certificate up, read its ledger row, decide and
 * send (claimAndSend), answer; or send without the ledger when it cannot be used. Its history
 * events are collected as it goes and recorded at the end.
 */
class ByNameRenewal {
  readonly #budget: CallBudget;
  readonly #runId = randomUUID();
  readonly #events: CertificateEvent[] = [];
  #cert: CertificateRecord | undefined;

  constructor(
    readonly deps: RenewByNamePorts,
    readonly name: string,
    readonly requester: Requester,
    readonly log: Logger,
    readonly context: RequestContext,
    readonly before: Parameters<typeof withBefore>[1],
  ) {
    this.#budget = deps.budget ?? callBudget();
  }

  /**
   * The stages; `forcedPast`: the last preflight's reason the request was forced past; `policy`:
   * the disabling certificate policy it was forced past.
   */
  async run(
    forcedPast: FailReason | undefined,
    policy?: CertificatePolicy | undefined,
  ): Promise<RenewedByName> {
    const lookupFailure = await this.#lookUp();
    const cert = this.#cert;
    const forced = [
      ...(forcedPast ? [blockedWord(forcedPast)] : []),
      ...(policy ? [`its disabled certificate policy (${policy.label})`] : []),
    ];
    const why = forced.length > 0 ? `forced past ${forced.join(" and ")}` : this.requester.because;
    this.#event("manual-request", {
      by: this.requester.by,
      ...this.#known(),
      ...(why ? { detail: why } : {}),
    });
    if (!cert) return this.#unrecorded(`it could not be looked up (${lookupFailure})`);
    if (this.deps.ledger.kind === "none") return this.#unrecorded(undefined);
    const read = await this.#readLedger(cert);
    if ("why" in read) return this.#unrecorded(read.why);
    return this.#recorded(cert, read.entry);
  }

  /** Get Certificate; its failure is kept as words (the renewal goes out without the ledger). */
  async #lookUp(): Promise<string | undefined> {
    const lookup = lookupBudget(this.#budget, this.deps.settings.scheduleTimeoutMs);
    try {
      this.#cert = await this.deps.client.get(this.name, { budget: lookup, context: this.context });
    } catch (error) {
      const failure = redact(ensureError(error).message);
      this.log.warn(
        `certsched: could not look up ${this.name} with Get Certificate, so its renewal is sent without the vault token (spec 2.2's two fields) and is not in the ledger, ${MAY_ASK_AGAIN}: ${failure}`,
      );
      return failure;
    }
    if (this.deps.inventory) {
      await rememberRenewed({ ...this.deps, inventory: this.deps.inventory }, this.log, this.#cert);
    }
    return undefined;
  }

  /** The certificate's ledger row, or why the ledger cannot record this renewal. */
  async #readLedger(
    cert: CertificateRecord,
  ): Promise<{ readonly entry: LedgerEntry | undefined } | { readonly why: string }> {
    try {
      await this.deps.ledger.open();
      return { entry: await this.deps.ledger.read(cert.id) };
    } catch (error) {
      if (error instanceof ValidationError) {
        // The sweep will not touch a row it cannot read (LedgerRowInvalid); a person asked.
        return {
          why: `its ledger row is invalid (${redact(error.message)}); correct or delete the row`,
        };
      }
      return { why: this.#ledgerProblem(error) };
    }
  }

  /** Sends without the ledger; `why` says what kept it out. */
  async #unrecorded(why: string | undefined): Promise<RenewedByName> {
    const note = why ? `${why}, ${MAY_ASK_AGAIN}` : undefined;
    const cert = this.#cert;
    const target = cert?.target;
    const scheduled = (message: string, more: Partial<RenewedByName> = {}): RenewedByName => ({
      status: "scheduled",
      message,
      target,
      recorded: false,
      ...more,
      ...(note ? { note } : {}),
    });
    try {
      const sendBudget = scheduleBudget(this.#budget);
      const message = await this.deps.client.renew(this.name, {
        target,
        budget: sendBudget,
        context: this.context,
      });
      this.#event("renewal-scheduled", { ...this.#known(), detail: redact(message) });
      return scheduled(message);
    } catch (error) {
      const failed = await this.#afterFailure(error, true);
      if ("after" in failed) {
        const message = confirmedMessage(failed.after);
        this.#event("renewal-scheduled", { ...this.#known(), detail: message });
        return scheduled(message, { confirmedBy: "get-certificate" });
      }
      this.#failed(failed.thrown, (d) =>
        d.error === "UPSTREAM_TIMEOUT" ? "answer-unknown" : "failed",
      );
      throw failed.thrown;
    } finally {
      await this.#record();
    }
  }

  /** Decides, claims and sends as a sweep would, then answers from what claimAndSend found. */
  async #recorded(cert: CertificateRecord, entry: LedgerEntry | undefined): Promise<RenewedByName> {
    const now = this.deps.now();
    const verdict = decide({
      expiryDate: cert.expiryDate,
      record: entry?.record,
      now,
      graceMs: this.deps.settings.renewalGraceMs,
    });
    const stuck = verdict.action === "stuck";
    const ledger = { error: undefined as unknown, unresolved: false };
    const sendBudget = scheduleBudget(this.#budget);
    const sent = await claimAndSend({
      cert,
      entry,
      // Same expiry: the same episode goes on (its first request, its attempts).
      previous: verdict.reason === "NewRenewal" ? undefined : entry?.record,
      reason: MANUAL_REQUEST,
      stuck,
      ledger: this.deps.ledger,
      claimedAt: now,
      now: this.deps.now,
      send: (sending) =>
        this.deps.client.renew(this.name, {
          target: cert.target,
          budget: sendBudget,
          sending,
          context: this.context,
        }),
      ledgerFailed: (error) => {
        ledger.error = error;
      },
      unresolved: () => {
        ledger.unresolved = true;
      },
      describe,
    });
    return this.#answer(cert, sent, stuck, ledger);
  }

  /** The answer to the person who asked, from what claimAndSend found. */
  async #answer(
    cert: CertificateRecord,
    sent: Awaited<ReturnType<typeof claimAndSend>>,
    stuck: boolean,
    ledger: { readonly error: unknown; readonly unresolved: boolean },
  ): Promise<RenewedByName> {
    const target = cert.target;
    const outcome = { id: cert.id, expiryDate: cert.expiryDate };
    switch (sent.kind) {
      case "ledger-failed":
        // Nothing was sent: a person asked, so it goes out without the ledger.
        return this.#unrecorded(this.#ledgerProblem(ledger.error));
      case "conflict": {
        const message = `a sweep is renewing ${this.name} right now; it was not asked for again`;
        this.#event("skipped", { ...outcome, reason: "ClaimLost", detail: message });
        await this.#record();
        return { status: "in-progress", message, target, recorded: true };
      }
      case "answered": {
        this.#event(stuck ? "stuck" : "renewal-scheduled", {
          ...outcome,
          detail: redact(sent.message),
        });
        await this.#record();
        if (!ledger.unresolved) {
          return { status: "scheduled", message: sent.message, target, recorded: true };
        }
        return this.#sentUnresolved(sent.message, target, ledger.error);
      }
      default:
        return this.#notAnswered(cert, sent.error, sent.kind === "unanswered");
    }
  }

  /**
   * Sent and accepted, but the answer's write did not land: the row still says "sent", so the
   * next sweeps wait out the grace, then ask again.
   */
  #sentUnresolved(message: string, target: string, ledgerError: unknown): RenewedByName {
    const why =
      ledgerError === undefined
        ? "the renewal ledger changed under it before its answer was written"
        : this.#ledgerProblem(ledgerError);
    return {
      status: "scheduled",
      message,
      target,
      recorded: false,
      note: `${why}, ${MAY_ASK_AGAIN} after the grace (CERTSCHED_RENEWAL_GRACE)`,
    };
  }

  /**
   * The request failed or got no answer. The ledger keeps "answer unknown" (the next sweeps wait
   * out the grace); Get Certificate may show it done already. Otherwise recorded, then thrown.
   */
  async #notAnswered(
    cert: CertificateRecord,
    error: unknown,
    unanswered: boolean,
  ): Promise<RenewedByName> {
    const failed = await this.#afterFailure(error, unanswered);
    const outcome = { id: cert.id, expiryDate: cert.expiryDate };
    if ("after" in failed) {
      const message = confirmedMessage(failed.after);
      this.#event("renewal-scheduled", { ...outcome, detail: message });
      await this.#record();
      return {
        status: "scheduled",
        message,
        target: cert.target,
        recorded: true,
        confirmedBy: "get-certificate",
      };
    }
    this.#failed(failed.thrown, () => (unanswered ? "answer-unknown" : "failed"));
    await this.#record();
    throw failed.thrown;
  }

  #afterFailure(error: unknown, mayConfirm: boolean) {
    const { client } = this.deps;
    return afterFailure(
      client,
      this.name,
      this.#cert,
      this.#budget,
      error,
      mayConfirm,
      this.context,
    );
  }

  /** A failed request's event: its kind chosen from its description. */
  #failed(thrown: unknown, kindOf: (described: Described) => EventKind): void {
    const { detail, ...extra } = describe(thrown);
    this.#event(kindOf({ detail, ...extra }), { ...this.#known(), detail, ...extra });
  }

  #ledgerProblem(error: unknown): string {
    const why = `the renewal ledger could not record it (${redact(ensureError(error).message)})`;
    this.log.warn(`certsched: renewing ${this.name} all the same: ${why}, ${MAY_ASK_AGAIN}`);
    return why;
  }

  /** The certificate's id and expiry, once looked up. */
  #known(): Partial<CertificateEvent> {
    const cert = this.#cert;
    return cert ? { id: cert.id, expiryDate: cert.expiryDate } : {};
  }

  #event(kind: EventKind, more: Partial<CertificateEvent> = {}): void {
    this.#events.push({
      at: this.deps.now(),
      certificateName: this.name,
      event: kind,
      trigger: this.requester.trigger,
      runId: this.#runId,
      reason: MANUAL_REQUEST,
      ...more,
      ...withBefore(kind, this.before),
      ...(kind === "renewal-scheduled" ? acceptedDetail(this.requester, more.detail) : {}),
    });
  }

  async #record(): Promise<void> {
    await recordHistory(this.deps.history, this.log, this.#events);
  }
}
