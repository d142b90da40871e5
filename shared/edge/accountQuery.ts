import { z } from "zod";
import { type Problem, ValidationError } from "../lib/errors.js";
import { escapeControl } from "../lib/text/escapeControl.js";

/**
 * The `?account=NAME` of the HTTP API. Routes acting on one account (create, renew,
 * get) take it, and need it when more than one account is declared; list-like routes (the
 * status list, the due list, connectivity, verifications, the dashboard) cover every account
 * without it, one account with it. An unknown name is a 400 naming `account` and listing the
 * known ones: the caller's mistake, never the deployment's (not a 503 as a configuration
 * error would be).
 */

/** The query parameter, as parseQuery schemas declare it. */
export const accountParameter = { account: z.string().optional() };

/** A query that takes `account` only (create, renew, get, due, connectivity, verifications). */
export const accountQuery = z.object(accountParameter);

/**
 * `?account=` of a route that never checked its query (the verifications'): read alone, other
 * parameters left as they always were (ignored); given twice, a 400.
 */
export function accountParam(url: string): string | undefined {
  const values = new URL(url).searchParams.getAll("account");
  if (values.length > 1) {
    refuse({ name: "account", message: `is given ${values.length} times: give it at most once` });
  }
  return values[0];
}

/** Longest account name quoted back: names are 1-40 characters, so a longer one is cut. */
const SHOWN = 48;

const listed = (known: readonly string[]) => known.map((k) => `'${k}'`).join(", ");

function refuse(problem: Problem): never {
  throw new ValidationError("query", [problem]);
}

function checked(requested: string, known: readonly string[]): string {
  if (known.includes(requested)) return requested;
  const cut = requested.length > SHOWN ? `${requested.slice(0, SHOWN)}…` : requested;
  return refuse({
    name: "account",
    message: `'${escapeControl(cut)}' is unknown: the accounts are ${listed(known)}`,
  });
}

/**
 * The one account a route acts on: the requested one (known), or the only account when one is
 * declared (or none: "default"). Without `account` and with several accounts: a 400.
 */
export function oneAccount(known: readonly string[], requested: string | undefined): string {
  if (requested !== undefined) return checked(requested, known);
  const [only, ...others] = known;
  if (only === undefined) throw new Error("no account: the settings always hold one");
  if (others.length > 0) {
    refuse({
      name: "account",
      message: `is required when more than one account is declared: the accounts are ${listed(known)}`,
    });
  }
  return only;
}

/** The accounts a list-like route covers: every one, or the requested one (known). */
export function accountsOf(known: readonly string[], requested: string | undefined): string[] {
  return requested === undefined ? [...known] : [checked(requested, known)];
}
