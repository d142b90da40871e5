import { randomBytes } from "node:crypto";
import type {
  QuotaUsage,
  Reservation,
  ReservationInput,
  SharedBudget,
} from "../../core/ports/budget.js";
import { QuotaExhaustedError } from "../../core/quota/budgetRules.js";
import type { ServiceQuota } from "../../core/quota/serviceQuota.js";
import { HISTORY_TABLE } from "./accountTables.js";
import {
  CONTENDED_PAUSE_MS,
  CONTENDED_TRIES,
  CONTENTION_MS,
  type Counted,
  GRANTED,
  insertedAt,
  PENDING,
} from "./budgetRows.js";
import { countWindow, needOfRenewals, usageOf } from "./budgetWindow.js";
import { Room } from "./reservationRoom.js";
import { REQUEST_PARTITION, toRequestRow } from "./rows/historyRow.js";
import {
  type LazyTable,
  lazyTable,
  statusOf,
  type TableLocation,
  unavailableError,
} from "./table.js";

/**
 * CERTSCHED_SERVICE_QUOTA as one budget shared by every process and instance: each
 * attempt to reach the service first reserves one request by inserting a row into the history's
 * request partition (the row the 7-day count reads), and is sent only if the reservation is
 * granted; one that never left is released (its row deleted), one that was sent stays.
 *
 * Why no process can take the budget over its limit:
 * - The window is measured on the storage service's clock only: each row's `Timestamp` is set by
 *   the storage service when it is inserted, and a reserver counts the rows whose `Timestamp` is
 *   at or after its own row's minus the window. No host clock plays a part (a host whose clock
 *   is days off reserves like any other).
 * - A reservation is granted only if, counted after its own insert, the rows (its own included)
 *   are at most the limit. Take the granted reservations of any window: the one whose count
 *   started last, X, started it after every other one's insert had completed (each counts after
 *   its insert), so X's count saw every one of them still standing (Table storage is strongly
 *   consistent); released rows were never sent. X was granted, so they are at most the limit.
 * - A read's row is written "pending", and a renewal's count leaves pending reads out (a flood of
 *   reads, most of them refused a moment later, must not make a renewal back off). A read is
 *   sent only after its row is marked "granted" and a second count, pending reads included,
 *   still allows it; so in the argument above X's last count saw every granted read in its final
 *   form too (reserveOnce).
 * - Two contenders at the edge may both see the other and both back off: conservative, never
 *   over. A row whose delete fails stays counted: also conservative.
 *
 * Reads are granted only below 80 % and only when what is left still covers what due renewals
 * need (`need`); renewals may use the budget to the last request.
 */

export interface SharedBudgetOptions extends TableLocation {
  readonly quota: ServiceQuota;
  /** Requests due renewals still need in the window (renewalNeed.ts); asked only for reads. */
  readonly need: () => Promise<number>;
  /**
   * Lists what is due and keeps it in the inventory (as a renewal's request, never a read's),
   * when no list was sent within LIST_FRESH_MS: the need of renewals is then known before any
   * read may spend. Unset, or failing: a read is refused while the need is unknown.
   */
  readonly learnNeed?: () => Promise<void>;
  /** The host clock: only for the row's `at`, shown to people; never for the window. */
  readonly now: () => Date;
  readonly tableName?: string;
  readonly timeoutMs?: number | undefined;
}

/** The budget in the history table of `options`, shared by everything that writes to it. */
export function sharedBudget(options: SharedBudgetOptions): SharedBudget {
  return new SharedBudgetTable(options);
}

/**
 * One insert and count refused: the window without the refused row, and whether contenders were
 * in the way.
 */
interface Refused {
  readonly usage: QuotaUsage;
  readonly contended: boolean;
}

/**
 * The budget as a class: its methods are fields, so that it can be spread and its methods passed
 * around like the object of functions it was.
 */
class SharedBudgetTable implements SharedBudget {
  readonly #options: SharedBudgetOptions;
  readonly #table: LazyTable;
  readonly #quota: ServiceQuota;
  /** The storage clock as last seen here, against this host's monotonic clock. */
  #seen: { readonly storage: number; readonly local: number } | undefined;
  readonly #unavailable: ReturnType<typeof unavailableError>;

  constructor(options: SharedBudgetOptions) {
    const tableName = options.tableName ?? HISTORY_TABLE;
    this.#options = options;
    this.#table = lazyTable(options, tableName);
    this.#quota = options.quota;
    this.#unavailable = unavailableError("HISTORY_UNAVAILABLE", "request budget", tableName);
  }

  readonly reserve = async (input: ReservationInput): Promise<Reservation> => {
    const room = new Room(input.purpose, this.#quota.requests, () =>
      needOfRenewals(this.#table, this.#options, this.#storageNow() ?? Date.now()),
    );
    for (let attempt = 1; ; attempt++) {
      const atSight = await this.#refusedAtSight(input, room);
      if (atSight) throw atSight;
      const outcome = await this.#reserveOnce(input, (used) => room.allows(used));
      if ("settle" in outcome) return outcome;
      // Only rows of contenders that may back off too stood in the way: try again after a
      // random pause, so that not every one of a burst gives up (each try is a new insert and
      // count, as safe as the first).
      if (!outcome.contended || attempt >= CONTENDED_TRIES[input.purpose]) {
        throw new QuotaExhaustedError(input.purpose, outcome.usage, room.need ?? 0);
      }
      await new Promise((resolve) =>
        setTimeout(resolve, 20 + Math.random() * Math.min(CONTENDED_PAUSE_MS, 80 * attempt)),
      );
    }
  };

  readonly usage = async (runId: string): Promise<QuotaUsage | undefined> => {
    const now = this.#storageNow();
    if (now === undefined) return undefined;
    try {
      return usageOf(
        this.#quota,
        await countWindow(this.#table, this.#quota, now - this.#quota.windowMs, false),
        runId,
        now,
      );
    } catch (error) {
      throw this.#unavailable("read", error);
    }
  };

  #storageNow(): number | undefined {
    const seen = this.#seen;
    return seen === undefined ? undefined : seen.storage + (performance.now() - seen.local);
  }

  /**
   * A read that the window as last seen already refuses writes no row: a flood of reads past
   * their share leaves nothing a renewal's count could trip over. Only a refusal is taken
   * from this look; a grant always comes from the insert and count.
   */
  async #refusedAtSight(
    input: ReservationInput,
    room: Room,
  ): Promise<QuotaExhaustedError | undefined> {
    const now = this.#storageNow();
    if (input.purpose !== "read" || now === undefined) return undefined;
    let before: Counted[];
    try {
      before = await countWindow(this.#table, this.#quota, now - this.#quota.windowMs, false);
    } catch {
      return undefined; // The insert and count decide (and say so if storage is down).
    }
    if (await room.allows(before.length + 1)) return undefined;
    return new QuotaExhaustedError(
      input.purpose,
      usageOf(this.#quota, before, input.runId, now),
      room.need ?? 0,
    );
  }

  /** One insert and count: the reservation, or why not and whether contenders were in the way. */
  async #reserveOnce(
    input: ReservationInput,
    allows: (used: number) => Promise<boolean>,
  ): Promise<Reservation | Refused> {
    const { rowKey, own } = await this.#insert(input);
    const counted = await this.#count(rowKey, own, input.purpose === "read", allows);
    if (counted === true) return this.#granted(rowKey);
    await this.#remove(rowKey).catch(() => {});
    const others = counted.filter((r) => r.rowKey !== rowKey);
    // Rows written just now may be contenders about to back off as this one does.
    const settledBefore = own - CONTENTION_MS;
    const older = others.filter((r) => r.at < settledBefore).length;
    return {
      usage: usageOf(this.#quota, others, input.runId, own),
      contended: older < others.length && (await allows(older + 1)),
    };
  }

  /** Inserts the reservation's row: its key, and its insert time on the storage clock. */
  async #insert(input: ReservationInput): Promise<{ rowKey: string; own: number }> {
    // The row's time (its key: the history's cleanup and 7-day count read it) is this host's,
    // unless the storage's clock as last seen is later: a host running days behind must not
    // write rows the cleanup takes for old while they are still in the window.
    const seenNow = this.#storageNow();
    const at = new Date(
      Math.max(this.#options.now().getTime(), seenNow ?? Number.NEGATIVE_INFINITY),
    );
    const row = {
      ...toRequestRow(
        { at, operation: input.operation, trigger: input.trigger },
        randomBytes(6).toString("hex"),
      ),
      purpose: input.purpose,
      runId: input.runId.slice(0, 100),
      ...(input.purpose === "read" ? { state: PENDING } : {}),
    };
    let own: Date | undefined;
    try {
      await this.#table.ensureTable();
      const created = await (await this.#table.client()).createEntity(row, this.#table.limit());
      own = insertedAt(created);
    } catch (error) {
      throw this.#unavailable("write", error);
    }
    if (own === undefined) {
      await this.#remove(row.rowKey);
      throw this.#unavailable("write", new Error("no storage time in the answer"));
    }
    this.#seen = { storage: own.getTime(), local: performance.now() };
    return { rowKey: row.rowKey, own: own.getTime() };
  }

  /**
   * Counts the window of the row inserted at `own`: true if the reservation is granted, else the
   * rows of the last count. A failing count releases the row.
   */
  async #count(
    rowKey: string,
    own: number,
    read: boolean,
    allows: (used: number) => Promise<boolean>,
  ): Promise<true | Counted[]> {
    const from = own - this.#quota.windowMs;
    let rows: Counted[];
    try {
      rows = await countWindow(this.#table, this.#quota, from, read);
      if (await allows(rows.length)) {
        if (!read) return true;
        // A read is marked granted, then counts once more, pending reads included: take the
        // granted reservation whose last count started last; every other granted one was
        // already in the table in its final form (a renewal's row, or a read's marked granted)
        // when that count started, so it saw them all. It was granted, so they are at most the
        // limit (a read's allowance is below it). A renewal's count may leave pending reads
        // out: a pending read is sent only after a later count of its own.
        await (await this.#table.client()).updateEntity(
          { partitionKey: REQUEST_PARTITION, rowKey, state: GRANTED },
          "Merge",
          this.#table.limit(),
        );
        rows = await countWindow(this.#table, this.#quota, from, true);
        if (await allows(rows.length)) return true;
      }
    } catch (error) {
      await this.#remove(rowKey).catch(() => {});
      throw this.#unavailable("read", error);
    }
    return rows;
  }

  /** A granted reservation: one that never left is released, one that was sent stays. */
  #granted(rowKey: string): Reservation {
    return {
      settle: async (sent) => {
        if (!sent) await this.#remove(rowKey);
      },
    };
  }

  async #remove(rowKey: string): Promise<void> {
    try {
      await (await this.#table.client()).deleteEntity(
        REQUEST_PARTITION,
        rowKey,
        this.#table.limit(),
      );
    } catch (error) {
      // Gone already is released; any other failure leaves the row counted (conservative).
      if (statusOf(error) !== 404) throw this.#unavailable("release a reservation in", error);
    }
  }
}
