import type { EstateCertificate, EstateProblem } from "../estate/estate.js";
import type { KeptEstate } from "../estate/kept.js";
import type { EstateReport } from "../estate/report.js";

/**
 * What estate discovery reads, with the account's own identity (it sees what it may see):
 * Azure Resource Graph across every subscription the identity can read, and each vault's own
 * certificate list. Both are upstreams: bounded in time, pages and size; they never throw.
 */

/** A Key Vault Resource Graph found. */
export interface VaultRef {
  /** Lower-case vault name. */
  readonly name: string;
  /** The vault's ARM id, lower-case. */
  readonly id: string;
  readonly subscriptionId: string;
  readonly resourceGroup?: string | undefined;
}

/** What Resource Graph gave: the certificates bound in App Service, gateways, Front Door; the vaults. */
export interface GraphFindings {
  readonly certificates: readonly EstateCertificate[];
  readonly vaults: readonly VaultRef[];
  /** One per query or page that could not be read; what was read before it stands. */
  readonly problems: readonly EstateProblem[];
  /** Rows left out by a bound (rows per run, pages per query); counted, never silent. */
  readonly truncated: number;
}

export interface ResourceGraph {
  /**
   * Every page of each estate query, by skip token, honouring Resource Graph's per-user quota
   * headers (x-ms-user-quota-remaining / -resets-after) and 429's Retry-After.
   */
  findings(signal?: AbortSignal): Promise<GraphFindings>;
}

/** One vault's certificates, from its own list (and each one's policy, for auto-renewal). */
export interface VaultListing {
  readonly certificates: readonly EstateCertificate[];
  /** Set when the vault could not be listed (403, unreachable): the report says so for it alone. */
  readonly problem?: EstateProblem | undefined;
  readonly truncated: number;
}

export interface VaultCertificateLister {
  list(vault: VaultRef, signal?: AbortSignal): Promise<VaultListing>;
}

/**
 * The last estate report of each account, kept between runs so a certificate entering the
 * unmanaged-and-expiring set is announced once. "none": no storage (nothing is kept, nothing
 * announced as entering); "memory": one process (the sandbox, tests).
 */
export interface EstateStore {
  readonly kind: "table" | "memory" | "none";
  /** What was kept of the account's last report; undefined when none was kept. */
  last(account: string, signal?: AbortSignal): Promise<KeptEstate | undefined>;
  /** Keeps what matters of `report` (core/estate/kept.ts) as its account's last, replacing the one before. */
  save(report: EstateReport, signal?: AbortSignal): Promise<void>;
}

/** What discovery reads for one account: Resource Graph and its vaults, with the account's identity. */
export interface EstateReaders {
  readonly graph: ResourceGraph;
  readonly vaults: VaultCertificateLister;
}
