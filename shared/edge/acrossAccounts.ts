import type { Logger } from "../lib/log.js";
import { mapWithConcurrency } from "../lib/pool.js";
import { errorResponse } from "./errorResponse.js";
import type { ProblemDocument } from "./problem.js";

/**
 * A list-like route over several accounts: each account's part is read on its own,
 * at most `concurrency` at once, and one account that fails (its credentials refused, its
 * service down, its budget spent) is one entry of `accountErrors`, never the others' loss.
 * When every account failed, the first one's error is thrown: the answer is then the problem it
 * always was (and a single account's route answers exactly as before).
 */

/** One account's failure, as the problem it would have answered alone (redacted). */
export interface AccountError {
  readonly account: string;
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
}

export interface AccountPart<T> {
  readonly account: string;
  readonly value: T;
}

export interface Across<T> {
  /** The accounts that answered, in the order given. */
  readonly parts: AccountPart<T>[];
  /** The accounts that failed, in the order given; [] when none. */
  readonly accountErrors: AccountError[];
}

/** The problem document of `error`, as errorResponse would answer it, for one account. */
export function accountError(account: string, error: unknown, invocationId: string): AccountError {
  const response = errorResponse(error, invocationId);
  const body = JSON.parse(String(response.body)) as ProblemDocument;
  return {
    account,
    status: body.status,
    code: body.code,
    title: body.title,
    detail: body.detail,
  };
}

export async function acrossAccounts<T>(
  accounts: readonly string[],
  work: (account: string) => Promise<T>,
  options: {
    readonly concurrency: number;
    readonly invocationId: string;
    /** Where each account's failure is logged (a warning naming the account). */
    readonly log?: Logger;
  },
): Promise<Across<T>> {
  const settled = await mapWithConcurrency(accounts, options.concurrency, async (account) => {
    try {
      return { account, ok: true as const, value: await work(account) };
    } catch (error) {
      return { account, ok: false as const, error };
    }
  });
  const first = settled.find((s) => !s.ok);
  if (first && !first.ok && settled.every((s) => !s.ok)) throw first.error;
  const parts: AccountPart<T>[] = [];
  const accountErrors: AccountError[] = [];
  for (const s of settled) {
    if (s.ok) parts.push({ account: s.account, value: s.value });
    else {
      const failure = accountError(s.account, s.error, options.invocationId);
      options.log?.warn(
        `certsched account ${s.account} failed (${failure.code}): ${failure.title}: ${failure.detail}`,
      );
      accountErrors.push(failure);
    }
  }
  return { parts, accountErrors };
}

/** `{ accountErrors }` when any account failed, else nothing (spread into an answer). */
export function errorsPart(accountErrors: readonly AccountError[]) {
  return accountErrors.length > 0 ? { accountErrors } : {};
}
