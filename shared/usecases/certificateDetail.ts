import { type CertificateView, certificateView } from "../core/certificate/certificateView.js";
import type { CertificateRecord } from "../core/certificate/records.js";
import type { CertificateEvent } from "../core/history/events.js";
import { type ReceiptView, receiptView, renewalReceipts } from "../core/history/receipts.js";
import { fromServiceRecord } from "../core/inventory/fromRecords.js";
import type { History } from "../core/ports/history.js";
import { mergeRecord } from "../core/ports/inventory.js";
import type { RequestLog } from "../core/ports/requestLog.js";
import type { ServiceOperations } from "../core/ports/service.js";
import { QuotaExhaustedError } from "../core/quota/budgetRules.js";
import { nearQuota } from "../core/quota/serviceQuota.js";
import type { Settings } from "../core/settings.js";
import { type CertificateStatus, certificateStatus } from "../core/status/certificateStatus.js";
import type { StatusSources } from "../core/status/statusSources.js";
import {
  ConfigError,
  type ErrorCode,
  ensureError,
  isCertschedError,
  UpstreamError,
  ValidationError,
} from "../lib/errors.js";
import { redact } from "../lib/redact/redact.js";
import { DAY_MS } from "../lib/time.js";
import { type CalendarStatusPorts, statusOptionsFor } from "./listStatus.js";
import { loadOne } from "./steps/loadStatus.js";

/**
 * One certificate for GET /api/certificates/{name}: the service's record
 * (Get Certificate) merged with the status view and the recent history. The service's record
 * is the fresher word on expiry, target and vault, so it is merged over the inventory's for the
 * status (in memory: reading changes nothing stored).
 */

/** How far back the history of one certificate goes, and at most how many events. */
export const DETAIL_HISTORY_DAYS = 30;
export const DETAIL_HISTORY_LIMIT = 50;

/** What the detail of one certificate needs besides its status sources (a AccountPorts has it all). */
export interface CertificateDetailPorts extends CalendarStatusPorts {
  readonly client: Pick<ServiceOperations, "get">;
  readonly history: Pick<History, "events">;
  readonly requests: Pick<RequestLog, "shared" | "since">;
  readonly settings: CalendarStatusPorts["settings"] &
    Pick<Settings, "renewalGraceMs" | "verify" | "serviceQuota"> &
    Partial<Pick<Settings, "account">>;
}

/** What Get Certificate said: the record was `found`, the service knows `not-found`, or it `failed`. */
export type ServiceAnswer =
  | { readonly answer: "found" }
  | {
      readonly answer: "not-found" | "failed";
      readonly code: ErrorCode;
      /** The service's HTTP status, when it answered one. */
      readonly status?: number;
      /** Why, redacted. */
      readonly detail: string;
    }
  | {
      /** Not asked: the request budget (CERTSCHED_SERVICE_QUOTA) is kept for renewals. */
      readonly answer: "not-asked";
      readonly detail: string;
    };

export interface DetailHistory {
  /** Events at or after this instant, newest first. */
  readonly since: string;
  readonly events: CertificateEvent[];
  /** Each renewal's receipt among these events, newest first. */
  readonly receipts: ReceiptView[];
  /** Rows that could not be read, one line each. */
  readonly invalid?: string[];
  /** Why the history could not be read at all (the rest of the answer stands). */
  readonly unavailable?: string;
}

/**
 * The answer: the service's record fields at the top (as the route answered before the status
 * view existed) when it was found, else only `certificateName`; then `service`, `status`,
 * `history`, and `invalid` (storage rows that could not be read) when there are any.
 */
export type CertificateDetail = (CertificateView | { readonly certificateName: string }) & {
  readonly service: ServiceAnswer;
  readonly status: CertificateStatus;
  readonly history: DetailHistory;
  readonly invalid?: string[];
};

/**
 * Whether a read may spend a request: not once the budget reaches the sweep's warning line (80 %),
 * so that a reader clicking through the dashboard can never defer a renewal. A count that cannot
 * be read does not block the read (the sweep, which decides, checks again).
 */
async function budgetKept(ports: CertificateDetailPorts, now: Date): Promise<string | undefined> {
  const quota = ports.settings.serviceQuota;
  // A shared budget decides as the request is reserved (80 %, and what renewals need): `ask`.
  if (!quota || ports.requests.shared) return undefined;
  let used: number;
  try {
    used = await ports.requests.since(new Date(now.getTime() - quota.windowMs));
  } catch {
    return undefined;
  }
  if (!nearQuota(quota, used)) return undefined;
  return `not asked: CERTSCHED_SERVICE_QUOTA ${quota.text} is ${used} used (80 % or more), so the rest is kept for renewals; the status is from storage`;
}

/** Get Certificate, its failure kept as a value; the caller's own mistakes still throw. */
async function ask(
  ports: CertificateDetailPorts,
  name: string,
): Promise<
  | { record: CertificateRecord }
  | { error: Error; answer: ServiceAnswer }
  | { answer: ServiceAnswer }
> {
  try {
    return { record: await ports.client.get(name) };
  } catch (caught) {
    const error = ensureError(caught);
    // The shared budget kept the request for renewals: not the service's answer, nothing sent.
    if (error instanceof QuotaExhaustedError) {
      return {
        answer: {
          answer: "not-asked",
          detail: `not asked: ${redact(error.message)}; the status is from storage`,
        },
      };
    }
    // A name no URL can carry, or certsched not configured: not the service's answer.
    if (error instanceof ValidationError || error instanceof ConfigError) throw error;
    if (!isCertschedError(error)) throw error;
    const status = error instanceof UpstreamError ? error.status : undefined;
    const notFound = error instanceof UpstreamError && error.upstream === "get" && status === 404;
    return {
      error,
      answer: {
        answer: notFound ? "not-found" : "failed",
        code: error.code,
        ...(status !== undefined ? { status } : {}),
        detail: redact(error.message),
      },
    };
  }
}

/**
 * An event as answered: its texts redacted again. Rows are input like any other: a row written
 * before a secret was known to the writer (a rotated key, an older version) must not carry it
 * out, as the status view does for the ledger's detail.
 */
function redacted(event: CertificateEvent): CertificateEvent {
  const text = (value: string | undefined) => (value === undefined ? undefined : redact(value));
  return {
    ...event,
    ...(event.by !== undefined ? { by: text(event.by) } : {}),
    ...(event.reason !== undefined ? { reason: text(event.reason) } : {}),
    ...(event.detail !== undefined ? { detail: text(event.detail) } : {}),
    ...(event.error !== undefined ? { error: text(event.error) } : {}),
  };
}

async function historyOf(
  ports: CertificateDetailPorts,
  name: string,
  now: Date,
): Promise<DetailHistory> {
  const since = new Date(now.getTime() - DETAIL_HISTORY_DAYS * DAY_MS);
  try {
    const { items, invalid } = await ports.history.events({
      certificateName: name,
      since,
      limit: DETAIL_HISTORY_LIMIT,
    });
    return {
      since: since.toISOString(),
      events: items.map(redacted),
      receipts: renewalReceipts(items).map(receiptView),
      ...(invalid.length > 0 ? { invalid: invalid.map((line) => redact(line)) } : {}),
    };
  } catch (error) {
    return {
      since: since.toISOString(),
      events: [],
      receipts: [],
      unavailable: redact(ensureError(error).message),
    };
  }
}

/**
 * The detail of `name`. Throws the service's error when no one knows the name (the service
 * said 404, or failed, and neither the inventory nor the ledger holds it): a 404 problem, or
 * the service's failure as before. Storage that cannot be read is named in the answer when the
 * service found the certificate, and thrown when it did not (nothing else could answer).
 */
export async function certificateDetail(
  ports: CertificateDetailPorts,
  sources: StatusSources,
  name: string,
): Promise<CertificateDetail> {
  // The account's calendar too: the detail says the certificate's next window as the list does.
  const options = statusOptionsFor(ports, ports.settings.account ?? "default");
  const kept = await budgetKept(ports, options.now);
  const [asked, history] = await Promise.all([
    kept === undefined
      ? ask(ports, name)
      : Promise.resolve({ answer: { answer: "not-asked" as const, detail: kept } }),
    historyOf(ports, name, options.now),
  ]);
  const record = "record" in asked ? asked.record : undefined;
  let loaded: Awaited<ReturnType<typeof loadOne>>;
  try {
    loaded = await loadOne(sources, name, record?.id);
  } catch (error) {
    if (!record || !isCertschedError(error)) throw error;
    loaded = { input: { certificateName: name }, invalid: [redact(error.message)] };
  }
  const { input, invalid } = loaded;
  if (!record && "error" in asked && !input.inventory && !input.ledger) throw asked.error;
  const inventory = record
    ? mergeRecord(input.inventory, fromServiceRecord(record, "get", options.now))
    : input.inventory;
  const status = certificateStatus({ ...input, inventory }, options);
  return {
    ...(record ? certificateView(record, options.now) : { certificateName: name }),
    service: "answer" in asked ? asked.answer : { answer: "found" },
    status,
    history,
    ...(invalid.length > 0 ? { invalid } : {}),
  };
}
