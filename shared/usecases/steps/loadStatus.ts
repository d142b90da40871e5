import type { InventoryRecord } from "../../core/ports/inventory.js";
import type { LedgerRecord } from "../../core/ports/ledger.js";
import type { Settings } from "../../core/settings.js";
import type { StatusInput, StatusOptions } from "../../core/status/certificateStatus.js";
import { byName, type StatusSources } from "../../core/status/statusSources.js";
import { ValidationError } from "../../lib/errors.js";

/**
 * Reads what the status view needs for many certificates in one pass: one listing of the
 * inventory and one of the ledger, side by side (two storage calls' worth of waiting, however
 * many names), joined by certificate name. Changes nothing.
 */

/** Most certificates one load returns; more are left off and `truncated` says so. */
export const MAX_STATUS_CERTIFICATES = 5_000;

export interface LoadStatusOptions {
  /** Only these names (each one, known or not); default: every certificate known. */
  readonly names?: readonly string[] | undefined;
  /** Default MAX_STATUS_CERTIFICATES. */
  readonly max?: number;
}

export interface LoadedStatus {
  /** One input per certificate, sorted by name (code units: the same order on every host). */
  readonly inputs: StatusInput[];
  /** Rows that could not be read, one line each (shown as warnings, never guessed at). */
  readonly invalid: string[];
  /** True when more certificates were known than `max`: the first `max` by name are here. */
  readonly truncated: boolean;
}

/**
 * The row of one name among several (ids differ when a certificate was re-created): the row of
 * the id the inventory knows, else the one asked for last.
 */
function latest(rows: readonly LedgerRecord[], id: number | undefined): LedgerRecord | undefined {
  const sameId = rows.find((r) => r.id === id);
  if (sameId) return sameId;
  const when = (r: LedgerRecord) =>
    (r.lastRequestedAt ?? r.claimedAt ?? r.expiryAtRequest).getTime();
  return [...rows].sort((a, b) => when(b) - when(a))[0];
}

export async function loadStatus(
  sources: StatusSources,
  options: LoadStatusOptions = {},
): Promise<LoadedStatus> {
  const max = options.max ?? MAX_STATUS_CERTIFICATES;
  const [inventory, ledger] = await Promise.all([sources.inventory.list(), sources.ledgerRows()]);
  const records = new Map<string, InventoryRecord>(
    inventory.items.map((r) => [r.certificateName, r]),
  );
  const rows = new Map<string, LedgerRecord[]>();
  for (const row of ledger.items) {
    rows.set(row.certificateName, [...(rows.get(row.certificateName) ?? []), row]);
  }
  const names =
    options.names !== undefined
      ? [...new Set(options.names)]
      : [...new Set([...records.keys(), ...rows.keys()])];
  names.sort(byName);
  const kept = names.slice(0, max);
  return {
    inputs: kept.map((name) => {
      const record = records.get(name);
      return {
        certificateName: name,
        inventory: record,
        ledger: latest(rows.get(name) ?? [], record?.id),
      };
    }),
    invalid: [...inventory.invalid, ...ledger.invalid],
    truncated: names.length > kept.length,
  };
}

/**
 * One certificate: a point read of its inventory record, then of its ledger row by the id the
 * caller (Get Certificate) or the inventory knows; only without an id is the ledger listed.
 */
export async function loadOne(
  sources: StatusSources,
  name: string,
  id?: number,
): Promise<{ input: StatusInput; invalid: string[] }> {
  const inventory = await sources.inventory.get(name);
  const known = id ?? inventory?.id;
  if (known === undefined || !sources.ledgerRow) {
    const { inputs, invalid } = await loadStatus(sources, { names: [name] });
    return { input: inputs[0] ?? { certificateName: name }, invalid };
  }
  try {
    const row = await sources.ledgerRow(known);
    // Another name under this id: the record was re-created under a new name; not this one's.
    const ledger = row?.certificateName === name ? row : undefined;
    return { input: { certificateName: name, inventory, ledger }, invalid: [] };
  } catch (error) {
    // A row this version cannot read is named, never guessed at (and never a 400 to the caller).
    if (!(error instanceof ValidationError)) throw error;
    return { input: { certificateName: name, inventory }, invalid: [error.message] };
  }
}

/** What the status words are judged with: the clock and two settings. */
export interface StatusOptionsPorts {
  readonly now: () => Date;
  readonly settings: Pick<Settings, "renewalGraceMs" | "verify">;
}

/** The clock and settings the status words are judged with (CERTSCHED_VERIFY_WARN_DAYS...). */
export function statusOptionsOf(ports: StatusOptionsPorts): StatusOptions {
  return {
    now: ports.now(),
    graceMs: ports.settings.renewalGraceMs,
    warnDays: ports.settings.verify().warnDays,
  };
}
