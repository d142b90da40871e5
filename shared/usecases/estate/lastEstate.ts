import type { EstateStatus } from "../../core/estate/kept.js";
import type { EstateStore } from "../../core/ports/estate.js";
import { ensureError } from "../../lib/errors.js";
import { redact } from "../../lib/redact/redact.js";

/**
 * What the estate timer kept of an account's last report, read for a page that must not
 * discover (the dashboard): best effort, a store that fails is a problem line of its own.
 */

export type { EstateStatus };
export type EstateReader = Pick<EstateStore, "kind" | "last">;

/** One account's last estate; undefined without a store (nothing is ever kept). */
export async function readEstateStatus(
  store: EstateReader | undefined,
  account: string,
): Promise<EstateStatus | undefined> {
  if (store === undefined || store.kind === "none") return undefined;
  try {
    return { account, kept: await store.last(account) };
  } catch (error) {
    return {
      account,
      problem: `the last estate report could not be read: ${redact(ensureError(error).message)}`,
    };
  }
}
