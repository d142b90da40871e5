import type { ConnectToRule } from "./connectTo.js";

/** The settings verification reads (parsed by app/config: loadVerifySettings, loadSettings). */
export interface VerifySettings {
  /** CERTSCHED_VERIFY_CONNECT_TO, parsed; empty when unset. */
  readonly connectTo: readonly ConnectToRule[];
  /** CERTSCHED_VERIFY_WARN_DAYS: `expiring` below this many whole days left. Default 14. */
  readonly warnDays: number;
  /** CERTSCHED_VERIFY_WINDOW, ms: how long an accepted renewal may take to land. Default 2 h. */
  readonly windowMs: number;
  /**
   * CERTSCHED_SYNC_WINDOW, ms: how long a Key Vault certificate's consumers may take to serve
   * its new version (syncCheck.ts). Default 24 h; unset here: the same default.
   */
  readonly syncWindowMs?: number | undefined;
  /**
   * CERTSCHED_EVENT_RECHECK_FIRST, ms: after a Key Vault event's new version, how long until its
   * consumers are checked again; each next recheck waits twice as long, at most 1 h, and the last
   * comes at the end of the sync window. Default 1 min (1 s .. 1 h); unset here: the same default.
   */
  readonly eventRecheckFirstMs?: number | undefined;
  /** CERTSCHED_VERIFY_UNREACHABLE_AFTER, ms: unreachable is an error after this. Default 24 h. */
  readonly unreachableAfterMs: number;
  /** CERTSCHED_HTTP_TIMEOUT, ms: one probe's whole time (DNS, TCP, handshake). Default 30 s. */
  readonly timeoutMs: number;
  /**
   * NODE_EXTRA_CA_CERTS: the PEM file Node added to its CA store at start. Node 22 lists what it
   * loaded; on Node 20 the probe reads this file to judge a chain the same way.
   */
  readonly extraCaCertsPath?: string | undefined;
}
