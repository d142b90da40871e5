import { randomUUID } from "node:crypto";
import type { Trigger } from "../core/history/events.js";
import type { History } from "../core/ports/history.js";
import type { TransparencyStore } from "../core/ports/transparency.js";
import { MAX_ISSUANCE_ID, type SeenIssuance } from "../core/transparency/issuance.js";
import { issuanceLine, issuanceState } from "../core/transparency/issuanceView.js";
import { ensureError, type Problem, ValidationError } from "../lib/errors.js";
import { redact } from "../lib/redact/redact.js";
import { escapeControl } from "../lib/text/escapeControl.js";

/**
 * A person acknowledges an unexpected Certificate Transparency issuance: its red line goes, the
 * history keeps who and why. Only an unexpected one can be; one already acknowledged keeps its
 * first acknowledgement (asking again is no error).
 */

/** Longest reason kept, in characters. */
export const MAX_REASON = 500;

const ID = new RegExp(`^[0-9A-Za-z_-]{1,${MAX_ISSUANCE_ID}}$`);

export interface AcknowledgeIssuancePorts {
  readonly account: string;
  readonly transparency: Pick<TransparencyStore, "get" | "acknowledge">;
  readonly history: Pick<History, "kind" | "append">;
  readonly now: () => Date;
}

export interface AcknowledgeRequest {
  /** The issuance's id, as listed. */
  readonly id: string;
  /** Why it is no concern: 1..500 characters, no control or bidirectional characters. */
  readonly reason: string;
  /** Who: "function-key", "entra:<name> (<object id>)" or "cli". */
  readonly by: string;
  /** Where the request came from, for the history. */
  readonly trigger: Exclude<Trigger, "timer">;
}

export type Acknowledged =
  /** Acknowledged now; `historyProblem`: why the history could not record it (it is kept anyway). */
  | {
      readonly status: "acknowledged";
      readonly seen: SeenIssuance;
      readonly historyProblem?: string;
    }
  /** Acknowledged before: the first acknowledgement stays, nothing is recorded again. */
  | { readonly status: "already-acknowledged"; readonly seen: SeenIssuance }
  /** Expected or pending: nothing to acknowledge. */
  | {
      readonly status: "not-unexpected";
      readonly seen: SeenIssuance;
      readonly state: "expected" | "pending";
    }
  | { readonly status: "not-found" };

/** The rules of `id` and `reason`; each broken one named. Never quotes the reason back. */
export function acknowledgeProblems(id: string, reason: string): Problem[] {
  const problems: Problem[] = [];
  if (!ID.test(id)) {
    problems.push({
      name: "id",
      message: `must be 1 to ${MAX_ISSUANCE_ID} characters of A-Z, a-z, 0-9, "_" and "-", as listed`,
    });
  }
  if (reason.trim().length === 0 || [...reason].length > MAX_REASON) {
    problems.push({ name: "reason", message: `must be 1 to ${MAX_REASON} characters` });
  } else if (escapeControl(reason) !== reason) {
    problems.push({
      name: "reason",
      message: "must hold no control characters (line breaks, tabs, escapes) or direction marks",
    });
  }
  return problems;
}

/** Checks the request, then acknowledges the account's issuance and records it in the history. */
export async function acknowledgeIssuance(
  ports: AcknowledgeIssuancePorts,
  request: AcknowledgeRequest,
): Promise<Acknowledged> {
  const problems = acknowledgeProblems(request.id, request.reason);
  if (problems.length > 0) throw new ValidationError("acknowledgement", problems);
  const seen = await ports.transparency.get(ports.account, request.id);
  if (!seen) return { status: "not-found" };
  const state = issuanceState(seen);
  if (state === "acknowledged") return { status: "already-acknowledged", seen };
  if (state !== "unexpected") return { status: "not-unexpected", seen, state };
  const at = ports.now();
  const ack = { at, by: request.by, reason: request.reason };
  const kept = await ports.transparency.acknowledge(ports.account, request.id, ack);
  if (!kept) return { status: "not-found" };
  const historyProblem = await record(ports, request, kept, at);
  return { status: "acknowledged", seen: kept, ...(historyProblem ? { historyProblem } : {}) };
}

/** The history's event; a failure is returned as words (the acknowledgement is kept already). */
async function record(
  ports: AcknowledgeIssuancePorts,
  request: AcknowledgeRequest,
  seen: SeenIssuance,
  at: Date,
): Promise<string | undefined> {
  if (ports.history.kind === "none") return undefined;
  try {
    await ports.history.append([
      {
        at,
        certificateName: `ct:${seen.watched}`,
        event: "issuance-acknowledged",
        trigger: request.trigger,
        runId: randomUUID(),
        by: request.by,
        detail: `${request.reason}; ${issuanceLine(seen)}`,
      },
    ]);
    return undefined;
  } catch (error) {
    return redact(ensureError(error).message);
  }
}
