import type {
  Acknowledgement,
  Issuance,
  IssuanceVerdict,
  SeenIssuance,
  WatchedName,
} from "../transparency/issuance.js";
import type { Read } from "./history.js";

/**
 * What the Certificate Transparency watch talks to: the log watcher (an upstream, like the
 * service) and the store that keeps its cursors, the issuances read and the API's allowance.
 */

/** One page of issuances after a cursor, bounded and validated. */
export interface IssuancePage {
  readonly kind: "page";
  /** In the order the watcher discovered them (oldest first); at most the client's page bound. */
  readonly issuances: readonly Issuance[];
  /**
   * The id to ask after next: the last readable id of the entries kept. Undefined when the page
   * is empty (`[]`: the end) or held no readable id.
   */
  readonly lastId?: string | undefined;
  /** The answer held more entries than kept: ask again after `lastId` for the rest. */
  readonly truncated: boolean;
  /** Entries left out because they had no readable id, in words; empty when none. */
  readonly problems: readonly string[];
}

export type WatcherFailureReason =
  /** 401/403: the API key is missing, wrong or revoked. Stops every request of the run. */
  | "unauthorized"
  /** 429: the allowance is used up; `retryAfterMs` says for how long (clamped). */
  | "rate-limited"
  /** No connection, a reset, no answer in time. */
  | "unreachable"
  /** A 2xx whose body is not what the API says, or too large; a redirect. */
  | "bad-answer"
  /** Any other status (the watcher's own `code` and `message`, escaped, in `detail`). */
  | "refused";

export interface WatcherFailure {
  readonly kind: "failed";
  readonly reason: WatcherFailureReason;
  /** One line for people: redacted, escaped, bounded; never the API key. */
  readonly detail: string;
  readonly status?: number | undefined;
  /** From Retry-After (seconds or an HTTP date), clamped to at most 24 hours. */
  readonly retryAfterMs?: number | undefined;
}

export interface IssuanceQuery {
  readonly name: WatchedName;
  /** Issuances discovered after this id; undefined: from the first. */
  readonly after?: string | undefined;
}

/** The log watcher (Cert Spotter's issuances API). Never throws. */
export interface LogWatcher {
  issuances(query: IssuanceQuery, signal?: AbortSignal): Promise<IssuancePage | WatcherFailure>;
  close(): Promise<void>;
}

/** The watcher's allowance and pause, per API key identity (a name, never the key). */
export interface WatcherState {
  /** After a 429 or an unauthorized key: no request before then. */
  readonly pausedUntil?: Date | undefined;
  /** Why, in words (escaped, bounded). */
  readonly reason?: string | undefined;
}

/**
 * Where the watch keeps what it read, so no issuance is read twice or skipped across restarts and
 * instances. Writes may throw CertschedError("STORAGE_UNAVAILABLE"); reads answer Read's invalid
 * lines for rows that fail validation.
 */
export interface TransparencyStore {
  readonly kind: "table" | "memory" | "none";
  /** The id to ask after for one watched name of an account; undefined: never asked. */
  cursor(account: string, name: string): Promise<string | undefined>;
  setCursor(account: string, name: string, after: string): Promise<void>;
  /** Stores the issuances not stored yet for the account (by id); returns those it added. */
  addNew(items: readonly SeenIssuance[]): Promise<SeenIssuance[]>;
  /** An account's issuances, newest first by firstSeenAt; `since`: first seen at or after. */
  list(account: string, options?: { readonly since?: Date }): Promise<Read<SeenIssuance>>;
  get(account: string, id: string): Promise<SeenIssuance | undefined>;
  /** Replaces a stored issuance's verdict (a pending one judged). */
  setVerdict(account: string, id: string, verdict: IssuanceVerdict): Promise<void>;
  /**
   * Claims the one webhook message of an issuance: true for exactly one caller across processes,
   * while it has no notifiedAt and no claim younger than 15 minutes (a crashed sender's claim
   * expires). Then markNotified after sending, or releaseNotice when sending failed.
   */
  claimNotice(account: string, id: string, now: Date): Promise<boolean>;
  markNotified(account: string, id: string, at: Date): Promise<void>;
  releaseNotice(account: string, id: string): Promise<void>;
  /** Keeps a person's acknowledgement; undefined when no such issuance. */
  acknowledge(account: string, id: string, ack: Acknowledgement): Promise<SeenIssuance | undefined>;
  watcherState(keyName: string): Promise<WatcherState>;
  pause(keyName: string, until: Date, reason: string): Promise<void>;
  /** Takes one request from the hour's allowance (hours start on the UTC hour); false: none left. */
  takeRequest(keyName: string, now: Date, allowancePerHour: number): Promise<boolean>;
}
