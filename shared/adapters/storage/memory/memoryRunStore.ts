import type { KeyEntry, RunStore } from "../../../core/ports/runStore.js";
import { advances, isFinished } from "../../../core/runs/run.js";
import { fromRunRow, toRunRow } from "../rows/runRow.js";
/**
 * In-process runs (no storage configured: tests, the sandbox). Runs go through the same row
 * mappers as the table's, so what one stores and reads back the other does too.
 */
export function memoryRunStore(): RunStore {
  const runs = new Map<string, ReturnType<typeof toRunRow>>();
  const keys = new Map<string, KeyEntry>();
  const refused = new Map<string, Date>();
  return {
    kind: "memory",
    get: async (runId) => {
      const row = runs.get(runId);
      return row ? fromRunRow({ ...row }, "(memory)") : undefined;
    },
    save: async (run, options) => {
      const row = runs.get(run.runId);
      const stored = row?.state;
      if (options?.onlyIf !== undefined && stored !== options.onlyIf) return;
      if (options?.onlyIfNotResent && row?.resentAt !== undefined) return;
      if (!advances(stored, run.state)) return;
      runs.set(run.runId, toRunRow(run));
    },
    claimKey: async (keyHash, entry, now, windowMs) => {
      const held = keys.get(keyHash);
      if (held && now.getTime() - held.at.getTime() < windowMs)
        return { claimed: false, entry: held };
      keys.set(keyHash, entry);
      return { claimed: true };
    },
    releaseKey: async (keyHash, runId) => {
      if (keys.get(keyHash)?.runId === runId) keys.delete(keyHash);
    },
    listUnfinished: async (limit) =>
      [...runs.values()]
        .filter((row) => !isFinished(row.state))
        .slice(0, limit)
        .map((row) => fromRunRow({ ...row }, "(memory)")),
    noteRefusal: async (account, refusedAt) => {
      if (!refusedAt) {
        refused.delete(account);
        return undefined;
      }
      const since = refused.get(account) ?? refusedAt;
      refused.set(account, since);
      return since;
    },
    removeBefore: async (cutoff) => {
      let removed = 0;
      for (const [runId, row] of runs) {
        if (Date.parse(row.requestedAt) < cutoff.getTime() && runs.delete(runId)) removed += 1;
      }
      for (const [keyHash, entry] of keys) {
        if (entry.at.getTime() < cutoff.getTime() && keys.delete(keyHash)) removed += 1;
      }
      return removed;
    },
  };
}
