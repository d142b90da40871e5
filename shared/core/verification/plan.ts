import { boundDetail } from "../../lib/text/boundDetail.js";
import { APP_SERVICE, KEY_VAULT } from "../certificate/fields.js";
import { WATCH_PREFIX } from "../inventory/watch.js";
import type { WatchVault } from "../inventory/watchVaults.js";
import type { InventoryRecord } from "../ports/inventory.js";
import type { VaultCertificate } from "../ports/probes.js";
import { endpointKey, type NamedEndpoint, parseEndpoint } from "./endpoint.js";
import { SERVICE_NAME_RULE, serviceNameProblem } from "./publicAddress.js";
import { addVaults, recordVault, vaultsAt, watchedVaults } from "./vaultBindings.js";

/**
 * Longest `domain` of any result: a host name is at most 253 characters, a vault's
 * `{vault}/{certificate}` at most 152; a name that could not be probed, a vault or certificate
 * name from the service (30,000 characters), a certificate with no endpoint named by its name,
 * are cut to this.
 */
export const MAX_DOMAIN = 300;

/** Longest piece of such a name quoted in its detail: the rule after it must stay readable. */
const MAX_NAME_IN_DETAIL = 100;

/** One thing to look at, and the inventory records it speaks for. */
export type Check =
  | {
      readonly kind: "tls";
      readonly endpoint: NamedEndpoint;
      readonly owners: InventoryRecord[];
      /** Only the service names it: probed at public addresses only (publicAddress.ts). */
      publicOnly: boolean;
      /** The vault certificates it serves (vaultBindings.ts); unset: none. */
      vaults?: VaultCertificate[];
    }
  | { readonly kind: "vault"; readonly owners: InventoryRecord[] }
  | {
      readonly kind: "unverifiable";
      readonly domain: string;
      readonly detail: string;
      readonly owners: InventoryRecord[];
    };

/** A check over TLS: one endpoint, whichever records name it. */
export type TlsCheck = Extract<Check, { kind: "tls" }>;

/** A check of a vault certificate's current version. */
export type VaultCheck = Extract<Check, { kind: "vault" }>;

/** A CERTSCHED_WATCH endpoint's record (`watch:host[:port]`), not one of the service's. */
export const isWatch = (r: InventoryRecord) => r.certificateName.startsWith(WATCH_PREFIX);

/** The certificate name a check's result carries: its first owner's, unless that is watched. */
export const nameOf = (owners: readonly InventoryRecord[]) => {
  const first = owners[0];
  return first && !isWatch(first) ? { certificateName: first.certificateName } : {};
};

/**
 * The check for a name that is not one to probe: refused as the service's word (a port, an
 * address), or not a host name (a wildcard, say).
 */
function unprobeable(
  record: InventoryRecord,
  name: string,
  problem: string,
  refused: string | undefined,
): Check {
  return {
    kind: "unverifiable",
    // The service's text as it was, escaped and bounded: it was not a name to probe.
    domain: boundDetail(name, MAX_DOMAIN),
    detail:
      refused === undefined
        ? `its domain ${problem}; name the hosts to check in CERTSCHED_WATCH`
        : `not probed: its domain "${boundDetail(name, MAX_NAME_IN_DETAIL)}" is refused because ${refused}: ${SERVICE_NAME_RULE}`,
    owners: [record],
  };
}

/** The checks planned so far, one TLS check per domain, added to record by record. */
class Planner {
  readonly checks: Check[] = [];
  private readonly byDomain = new Map<string, TlsCheck>();

  constructor(private readonly bindings: ReadonlyMap<string, readonly VaultCertificate[]>) {}

  /** What to look at for one record, by its target. */
  add(record: InventoryRecord): void {
    if (isWatch(record)) {
      this.tls(record, record.certificateName.slice(WATCH_PREFIX.length), false);
    } else if (record.target === KEY_VAULT) {
      if (record.keyVaultName) {
        this.checks.push({ kind: "vault", owners: [record] });
        // The domains that serve it: compared with the vault's current version (syncCheck.ts).
        if (record.rootDomain) this.tls(record, record.rootDomain, false, recordVault(record));
        for (const san of record.rootDomain ? (record.sanNames ?? []) : [])
          this.tls(record, san, true, recordVault(record));
      } else {
        this.unverifiable(
          record,
          "a Key Vault certificate, but the service names no keyVaultName for it",
        );
      }
    } else if (record.target === APP_SERVICE) {
      if (!record.rootDomain) {
        this.unverifiable(
          record,
          "the service lists no rootDomain for it, so there is no endpoint to check",
        );
        return;
      }
      this.tls(record, record.rootDomain, false);
      for (const san of record.sanNames ?? []) this.tls(record, san, true);
    } else if (record.target === undefined) {
      this.unverifiable(
        record,
        "its target is not known yet (the next sweep or Get Certificate tells it)",
      );
    } else {
      this.unverifiable(
        record,
        `target "${record.target}" has no endpoint or vault certsched can look at (a DNS-only or stand-alone certificate); name its hosts in CERTSCHED_WATCH to check them`,
      );
    }
  }

  private unverifiable(record: InventoryRecord, detail: string): void {
    this.checks.push({
      kind: "unverifiable",
      domain: record.rootDomain ?? record.certificateName,
      detail,
      owners: [record],
    });
  }

  /**
   * A TLS check of `name` for the record, with the vault certificate it should serve if any;
   * a domain already planned gains the record (and vaults) instead. `optional`: a name that
   * cannot be probed is passed over, not reported.
   */
  private tls(
    record: InventoryRecord,
    name: string,
    optional: boolean,
    vault: VaultCertificate | undefined = undefined,
  ): void {
    const fromService = !isWatch(record);
    // The service's words may not aim a probe at a port or an address (publicAddress.ts).
    const refused = fromService ? serviceNameProblem(name) : undefined;
    const endpoint = refused === undefined ? parseEndpoint(name) : refused;
    if (typeof endpoint === "string") {
      // A SAN entry may be a wildcard: the rootDomain is checked all the same.
      if (!optional) this.checks.push(unprobeable(record, name, endpoint, refused));
      return;
    }
    const vaults = [
      ...(vault ? [vault] : []),
      ...(fromService ? [] : vaultsAt(this.bindings, endpoint)),
    ];
    const known = this.byDomain.get(endpointKey(endpoint));
    if (known) {
      if (vaults.length > 0) known.vaults = addVaults(known.vaults ?? [], vaults);
      if (!known.owners.includes(record)) known.owners.push(record);
      // Watched too: the operator named it, so it is probed wherever it resolves.
      if (!fromService) known.publicOnly = false;
      return;
    }
    const check: TlsCheck = {
      kind: "tls",
      endpoint,
      owners: [record],
      publicOnly: fromService,
      ...(vaults.length > 0 ? { vaults } : {}),
    };
    this.byDomain.set(endpointKey(endpoint), check);
    this.checks.push(check);
  }
}

/**
 * What to look at for each record: the rootDomain (and SAN names) over TLS for an App Service
 * certificate or a watched endpoint, the vault for a Key Vault one, nothing (unverifiable,
 * with why) for any other target. One TLS check per domain: a domain serves one certificate,
 * whichever records name it.
 */
export function plan(
  records: readonly InventoryRecord[],
  watchVaults: readonly WatchVault[] = [],
): Check[] {
  const planner = new Planner(watchedVaults(watchVaults));
  // Certificates first, watched endpoints after: a domain both name is the certificate's.
  const ordered = [...records.filter((r) => !isWatch(r)), ...records.filter(isWatch)];
  for (const record of ordered) planner.add(record);
  return planner.checks;
}
