import type { Inventory } from "../../core/ports/inventory.js";
import type { Settings } from "../../core/settings.js";
import type { VaultEvent } from "../../core/vaultEvents/vaultEvent.js";
import {
  matchEvent,
  type WatchedCertificate,
  type WatchedVault,
  watchedVaultsOf,
} from "../../core/vaultEvents/watchedVaults.js";
import { ensureError } from "../../lib/errors.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";

/**
 * Which accounts watch the vault an event names: each account's inventory (its Key Vault
 * certificates) and CERTSCHED_WATCH vault entries, read once per account per delivery, however
 * many events ask.
 */

/** One account that watches the event's vault, with the certificate when it knows it. */
export interface Watcher {
  readonly account: string;
  readonly vault: WatchedVault;
  readonly certificate?: WatchedCertificate | undefined;
}

export type Watchers =
  | { readonly kind: "watched"; readonly watchers: readonly Watcher[] }
  /** No account watches it (a forged event, another deployment's vault). */
  | { readonly kind: "not-watched"; readonly detail: string }
  /** No account that could be read watches it, and an account's inventory could not be read. */
  | { readonly kind: "unreadable"; readonly detail: string };

type Watched = ReadonlyMap<string, WatchedVault> | { readonly error: string };

/** What one account's watches are read from. */
export interface WatchPorts {
  readonly inventory: Pick<Inventory, "list">;
  readonly settings: Pick<Settings, "watchVaults">;
}

/** What reading the accounts' watches needs: the accounts and each one's ports. */
export interface AccountsPorts {
  readonly accounts: readonly string[];
  forAccount(id?: string): WatchPorts;
}

/** The watchers of one delivery: each account's watched vaults read on first use, then kept. */
export function deliveryWatchers(
  services: AccountsPorts,
): (event: VaultEvent) => Promise<Watchers> {
  const read = new Map<string, Promise<Watched>>();
  const watchedOf = (account: string): Promise<Watched> => {
    let found = read.get(account);
    if (found === undefined) {
      found = readWatched(services.forAccount(account));
      read.set(account, found);
    }
    return found;
  };
  return async (event) => {
    const all = await Promise.all(
      services.accounts.map(async (a) => [a, await watchedOf(a)] as const),
    );
    const watchers: Watcher[] = [];
    const refused: string[] = [];
    const unread: string[] = [];
    for (const [account, watched] of all) {
      if ("error" in watched) {
        unread.push(
          `the inventory of account "${escapeControl(account)}" could not be read: ${watched.error}`,
        );
        continue;
      }
      const match = matchEvent(event, watched as ReadonlyMap<string, WatchedVault>);
      if (match.kind === "watched") {
        watchers.push({ account, vault: match.vault, certificate: match.certificate });
      } else refused.push(match.detail);
    }
    if (watchers.length > 0) return { kind: "watched", watchers };
    if (unread.length > 0) return { kind: "unreadable", detail: boundDetail(unread.join("; ")) };
    return { kind: "not-watched", detail: refused[0] ?? "no account is configured" };
  };
}

/** One account's watched vaults, or why its inventory could not be read. */
async function readWatched(ports: WatchPorts): Promise<Watched> {
  try {
    const { items } = await ports.inventory.list();
    return watchedVaultsOf(items, ports.settings.watchVaults);
  } catch (error) {
    return { error: boundDetail(escapeControl(redact(ensureError(error).message))) };
  }
}
