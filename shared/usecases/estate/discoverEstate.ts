import type { EstateCertificate, EstateProblem } from "../../core/estate/estate.js";
import type { EstateSettings } from "../../core/estate/estateSettings.js";
import { joinVaultCertificates } from "../../core/estate/join.js";
import { enteringExpiring } from "../../core/estate/kept.js";
import { estateAlertLine } from "../../core/estate/lines.js";
import { type EstateEntry, type EstateReport, estateReport } from "../../core/estate/report.js";
import type { Trigger } from "../../core/history/events.js";
import type { EstateReaders, EstateStore } from "../../core/ports/estate.js";
import type { Inventory } from "../../core/ports/inventory.js";
import type { Notifier } from "../../core/ports/notifier.js";
import type { KeyVaultSeam } from "../../core/ports/probes.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";

/**
 * Estate discovery for one account, with its own identity (it sees only what it may read):
 *   1. Resource Graph: App Service certificates and the sites bound to them, Application
 *      Gateway listeners' certificates, Front Door domains, the Key Vaults;
 *   2. each vault's own list (VAULT_CONCURRENCY at once; one vault's problem never hides the rest);
 *   3. the vaults' certificates joined with what uses them (core/estate/join.ts);
 *   4. the report against the inventory: each matched or its gaps (core/estate/report.ts);
 *   5. with `keep` (the timer): the certificates entering the unmanaged-and-expiring set since
 *      the last kept report get one alert line each and one webhook message; the report is kept.
 * Never throws for an upstream: what could not be read is a problem of the report.
 */

export interface EstatePorts {
  readonly account: string;
  readonly settings: { readonly estate: () => EstateSettings };
  readonly now: () => Date;
  readonly inventory: Pick<Inventory, "list">;
  readonly estate: EstateStore;
  readonly notifier: Pick<Notifier, "notifyEstate">;
  estateReaders(seam?: KeyVaultSeam): Promise<EstateReaders>;
}

export interface EstateOptions {
  readonly trigger: Trigger;
  readonly signal?: AbortSignal | undefined;
  /** Overrides CERTSCHED_ESTATE_EXPIRING_DAYS (the CLI's --expiring, the API's ?expiring=). */
  readonly expiringDays?: number | undefined;
  /** Keep the report and announce what entered the set (the timer); false: only report. */
  readonly keep: boolean;
  /** Where the vaults are and what TLS they need (tests, the sandbox). */
  readonly keyVault?: KeyVaultSeam | undefined;
}

export interface EstateRun {
  readonly report: EstateReport;
  /** The certificates that entered the unmanaged-and-expiring set (with `keep` only). */
  readonly entering: readonly EstateEntry[];
  /** Webhook messages sent (0 or 1). */
  readonly messages: number;
  readonly stored: boolean;
  /** A person must act: a certificate entered the set. */
  readonly failed: boolean;
}

/** Vaults listed at once. */
export const VAULT_CONCURRENCY = 4;

export async function discoverEstate(
  ports: EstatePorts,
  log: Logger,
  options: EstateOptions,
): Promise<EstateRun> {
  const settings = ports.settings.estate();
  const readers = await ports.estateReaders(options.keyVault);
  const found = await discovered(readers, options.signal);
  const records = await ports.inventory.list();
  const report = estateReport({
    account: ports.account,
    discovered: found.certificates,
    records: records.items,
    now: ports.now(),
    expiringDays: options.expiringDays ?? settings.expiringDays,
    problems: found.problems,
    truncated: found.truncated,
  });
  if (!options.keep) return { report, entering: [], messages: 0, stored: false, failed: false };
  return keepAndAnnounce(ports, report, log);
}

interface Discovered {
  readonly certificates: EstateCertificate[];
  readonly problems: EstateProblem[];
  readonly truncated: number;
}

/** Stages 1 to 3: Resource Graph, each vault, joined. */
async function discovered(readers: EstateReaders, signal?: AbortSignal): Promise<Discovered> {
  const graph = await readers.graph.findings(signal);
  const listings = await mapWithConcurrency(graph.vaults, VAULT_CONCURRENCY, (vault) =>
    readers.vaults.list(vault, signal),
  );
  const vaultCertificates = listings.flatMap((listing) => listing.certificates);
  return {
    certificates: joinVaultCertificates(graph.certificates, vaultCertificates),
    problems: [...graph.problems, ...listings.flatMap((l) => (l.problem ? [l.problem] : []))],
    truncated: graph.truncated + listings.reduce((n, l) => n + l.truncated, 0),
  };
}

/** Stage 5: what entered the set since the last kept report, told once; this one kept. */
async function keepAndAnnounce(
  ports: EstatePorts,
  report: EstateReport,
  log: Logger,
): Promise<EstateRun> {
  const previous = await ports.estate.last(ports.account);
  const entering = enteringExpiring(previous, report);
  for (const entry of entering) log.error(estateAlertLine(ports.account, entry, report.at));
  const alert = { entries: entering, expiringDays: report.expiringDays, at: report.at };
  const sent = entering.length > 0 ? await ports.notifier.notifyEstate(alert, log) : "not-needed";
  // Kept after the message: a run that dies before this announces again, never not at all.
  await ports.estate.save(report);
  return {
    report,
    entering,
    messages: sent === "sent" ? 1 : 0,
    stored: true,
    failed: entering.length > 0,
  };
}
