import { loadSettings } from "../shared/app/config/settings.js";
import { type AccountPorts, unknownAccount } from "../shared/app/services.js";
import { settingsOf } from "../shared/core/accounts.js";
import { countByStatus, type PreflightResult } from "../shared/core/preflight/preflight.js";
import { OUTCOMES, type SweepSummary } from "../shared/core/renewal/summary.js";
import { issuanceView } from "../shared/core/transparency/issuanceView.js";
import { countInventoryStatuses } from "../shared/core/verification/inventoryResult.js";
import { ensureError } from "../shared/lib/errors.js";
import { silentLogger } from "../shared/lib/log.js";
import { redact } from "../shared/lib/redact/redact.js";
import { preflightWith } from "../shared/usecases/preflight.js";
import { SAMPLE_CAA_FORBIDDEN, SAMPLE_REFUSAL } from "../sim/index.js";
import { SANDBOX_ACCOUNT_NAMES } from "../sim/sandbox.js";
import { renderPreflight, resultDocument } from "./commands/preflight.js";
import { EXIT } from "./failure.js";
import type { Io } from "./io.js";
import { type Palette, palette } from "./output/color.js";
import { renderSweep } from "./output/sweepReport.js";
import { wrapToWidth } from "./output/text.js";
import {
  onlyStagedFailures,
  renderSandboxVerification,
  type Sandbox,
  type SandboxVerification,
  sandboxBanner,
  sandboxServices,
  stagedFailures,
  startSandbox,
  verifySandbox,
} from "./sandbox.js";
import { renderSandboxAri, type SandboxAriPart, sandboxAriRenewal } from "./sandboxAri.js";
import {
  renderSandboxEstate,
  SANDBOX_ESTATE_ACCOUNT,
  type SandboxEstatePart,
  sandboxEstate,
} from "./sandboxEstate.js";
import { renderSandboxEvent, type SandboxEventPart, sandboxEventCheck } from "./sandboxEvents.js";
import {
  renderSandboxTransparency,
  SANDBOX_CT_ACCOUNT,
  type SandboxTransparencyPart,
  sandboxTransparency,
} from "./sandboxTransparency.js";
import { sandboxWindowsNote } from "./sandboxWindows.js";

/**
 * `certsched sweep --sandbox` (and `npm start` without CERTSCHED_BASE_URL): the sandbox's two
 * accounts, declared in CERTSCHED_ACCOUNTS, swept one after the other with each account's own
 * runtime (credentials, ledger, token cache), then each verified; the output shows every
 * account's preflight (run just before its sweep), each account's part under its name, then
 * one line per account.
 */

/** One account's part of the sandbox sweep. */
export interface SandboxAccountSweep {
  readonly account: string;
  readonly summary: SweepSummary;
  /** Failures the sandbox stages on purpose (the simulator's refusal). */
  readonly staged: string[];
  /** Absent after a dry run: nothing was renewed, so nothing can land. */
  readonly verification?: SandboxVerification;
  /** Preflight of the account's due certificates, run just before its sweep. */
  readonly preflight: SandboxPreflightPart;
  /** Certificates preflight finds `will-fail` on purpose (the staged CAA record and zone). */
  readonly stagedPreflight: string[];
  /** True when nothing but what is staged went wrong in this account. */
  readonly passes: boolean;
  /** The ARI renewal staged in the first account, after its verification. */
  readonly ari?: SandboxAriPart;
  /** The Key Vault event of the first account (a version added after the sweep) and its check. */
  readonly events?: SandboxEventPart;
  /** The Certificate Transparency watch of the first account, after its verification. */
  readonly transparency?: SandboxTransparencyPart;
  /** The estate of the sandbox's estate account, after its sweep. */
  readonly estate?: SandboxEstatePart;
}

/** What the sandbox sweep did, every account's part, and whether it went as staged. */
export interface SandboxSweep {
  readonly parts: SandboxAccountSweep[];
  readonly passes: boolean;
}

/**
 * Sweeps every sandbox account (or only `options.account`: `--account NAME`) with `sweep` (the
 * CLI's sweep of one runtime), then verifies each account swept unless it was a dry run.
 * `options.before(account)` runs before each account's sweep. An unknown account is a
 * ConfigError naming the sandbox's accounts (exit 2), before anything is sent.
 */
export async function sweepSandboxAccounts(
  sandbox: Sandbox,
  sweep: (runtime: AccountPorts) => Promise<SweepSummary>,
  options: { readonly account?: string; readonly before?: (account: string) => void } = {},
): Promise<SandboxSweep> {
  const names = sandbox.accounts.map((a) => a.name);
  const only = options.account;
  if (only !== undefined && !names.includes(only)) throw unknownAccount(only, names);
  const summaries: { account: string; summary: SweepSummary; preflight: SandboxPreflightPart }[] =
    [];
  // The sandbox's own settings, whatever the environment says: it must never reach a real account.
  const services = sandboxServices(sandbox);
  try {
    for (const account of services.accounts.filter((a) => only === undefined || a === only)) {
      options.before?.(account);
      // Before the sweep, as the daily timer runs ahead of it: no storage in the sandbox, so
      // preflight looks at the due list, as `certsched preflight` would (nothing is blocked).
      const preflight = await preflightOrError(services.forAccount(account));
      const summary = await sweep(services.forAccount(account));
      summaries.push({ account, summary, preflight });
    }
  } finally {
    await services.close();
  }
  const parts: SandboxAccountSweep[] = [];
  for (const { account, summary, preflight } of summaries) {
    // A dry run renewed nothing: there is nothing to see land.
    const verification = summary.dryRun ? undefined : await verifySandbox(sandbox, account);
    // One ARI renewal in the whole demo, after the verification (it renews one more certificate).
    const ari =
      summary.dryRun || parts.length > 0 ? undefined : await stagedAri(sandbox, account, summary);
    // One Key Vault event in the whole demo, after the sweep renewed what was due.
    const events =
      summary.dryRun || parts.length > 0 ? undefined : await sandboxEventCheck(sandbox, account);
    const estate =
      summary.dryRun || account !== SANDBOX_ESTATE_ACCOUNT
        ? undefined
        : await sandboxEstate(sandbox, account);
    // The watch reads what the verification read: contoso's, whose names the story is about.
    const transparency =
      verification && account === SANDBOX_CT_ACCOUNT
        ? await sandboxTransparency(sandbox, account, verification.results)
        : undefined;
    const stagedPreflight = stagedPreflightOf(sandbox, account, preflight);
    const unexpected = preflight.results.filter(
      (r) => r.status === "will-fail" && !stagedPreflight.includes(r.certificateName),
    );
    const passes =
      (!summary.failed || onlyStagedFailures(summary)) &&
      (verification?.passes ?? true) &&
      unexpected.length === 0 &&
      (transparency?.passes ?? true) &&
      (events?.passes ?? true) &&
      (estate?.passes ?? true) &&
      preflight.error === undefined;
    parts.push({
      account,
      summary,
      staged: stagedFailures(summary),
      ...(verification ? { verification } : {}),
      preflight,
      stagedPreflight,
      passes,
      ...(ari ? { ari } : {}),
      ...(events ? { events } : {}),
      ...(transparency ? { transparency } : {}),
      ...(estate ? { estate } : {}),
    });
  }
  return { parts, passes: parts.every((p) => p.passes) };
}

/** The staged ARI renewal with the sandbox's own services; its failure is said, never thrown. */
async function stagedAri(
  sandbox: Sandbox,
  account: string,
  summary: SweepSummary,
): Promise<SandboxAriPart | undefined> {
  const services = sandboxServices(sandbox);
  const swept = new Set(summary.results.map((r) => r.certificateName));
  try {
    return await sandboxAriRenewal(sandbox, account, services.forAccount(account), swept);
  } catch {
    return undefined;
  } finally {
    await services.close();
  }
}

/** Preflight of one account; its failure (the due list refused) is said, never the sweep's end. */
async function preflightOrError(runtime: AccountPorts): Promise<SandboxPreflightPart> {
  try {
    return { results: (await preflightWith(runtime, silentLogger, { scope: "all" })).results };
  } catch (error) {
    return { results: [], error: redact(ensureError(error).message) };
  }
}

/** One account's preflight in the sandbox: its results, or why it could not run. */
export interface SandboxPreflightPart {
  readonly results: readonly PreflightResult[];
  readonly error?: string;
}

/**
 * The will-fail results the sandbox stages: the CAA record on SAMPLE_CAA_FORBIDDEN's domain
 * (caa-forbids) and the refused certificate's missing zone (dns-zone-missing), each for exactly
 * that reason.
 */
function stagedPreflightOf(
  sandbox: Sandbox,
  account: string,
  report: SandboxPreflightPart,
): string[] {
  const refused = new Set(
    sandbox
      .account(account)
      .sim.certificates()
      .filter((c) => c.refuseRenewal === SAMPLE_REFUSAL)
      .map((c) => c.certificateName),
  );
  const staged = (name: string, reasons: readonly (string | undefined)[]) =>
    (name === SAMPLE_CAA_FORBIDDEN && reasons.includes("caa-forbids")) ||
    (refused.has(name) && reasons.includes("dns-zone-missing"));
  return report.results
    .filter(
      (r) =>
        r.status === "will-fail" &&
        staged(
          r.certificateName,
          r.checks.map((c) => c.reason),
        ),
    )
    .map((r) => r.certificateName);
}

/** Counts over every account's part (due and each outcome). */
function totalCounts(parts: readonly SandboxAccountSweep[]): Record<string, number> {
  const counts: Record<string, number> = { due: 0 };
  for (const outcome of OUTCOMES) counts[outcome] = 0;
  for (const { summary } of parts) {
    for (const [key, n] of Object.entries(summary.counts)) counts[key] = (counts[key] ?? 0) + n;
  }
  return counts;
}

/**
 * The JSON document: every result and every verification result carries `"account"`, and
 * `accounts` lists each account's `{name, failed, problems}` (docs/contracts/accounts.md)
 * with what the sandbox adds (staged failures, counts, its verification's counts).
 */
export function sandboxSweepDocument(sandbox: Sandbox, swept: SandboxSweep): object {
  const { parts } = swept;
  const verified = parts.filter((p) => p.verification !== undefined);
  const verificationResults = verified.flatMap((p) =>
    (p.verification?.results ?? []).map((r) => ({ account: p.account, ...r })),
  );
  return {
    sandbox: true,
    dryRun: parts.every((p) => p.summary.dryRun),
    // As a sweep over several accounts reports it: true when any account's run failed (here
    // the staged refusal does); `passes` says whether only what is staged went wrong (exit 0).
    failed: parts.some((p) => p.summary.failed),
    passes: swept.passes,
    stagedFailures: parts.flatMap((p) => p.staged),
    accounts: parts.map((p) => ({
      name: p.account,
      service: sandbox.account(p.account).sim.baseUrl,
      failed: p.summary.failed,
      problems: p.summary.problems,
      startedAt: p.summary.startedAt,
      durationMs: p.summary.durationMs,
      ledger: p.summary.ledger,
      ...(p.summary.listError === undefined ? {} : { listError: p.summary.listError }),
      stagedFailures: p.staged,
      passes: p.passes,
      counts: p.summary.counts,
      ...(p.verification ? { verificationCounts: p.verification.counts } : {}),
      ...(p.events ? { keyVaultEvent: p.events } : {}),
      ...(p.estate ? { estate: p.estate } : {}),
      ...(p.transparency
        ? {
            issuances: p.transparency.issuances.map((seen) => issuanceView(seen, new Date())),
            ...(p.transparency.problem ? { transparencyProblem: p.transparency.problem } : {}),
          }
        : {}),
    })),
    counts: totalCounts(parts),
    results: parts.flatMap((p) => p.summary.results.map((r) => ({ account: p.account, ...r }))),
    rejected: parts.flatMap((p) => p.summary.rejected.map((r) => ({ account: p.account, ...r }))),
    preflight: {
      counts: countByStatus(parts.flatMap((p) => p.preflight.results)),
      errors: parts.flatMap((p) =>
        p.preflight.error === undefined ? [] : [{ account: p.account, error: p.preflight.error }],
      ),
      staged: parts.flatMap((p) => p.stagedPreflight),
      results: parts.flatMap((p) => p.preflight.results.map(resultDocument)),
    },
    ...(verified.length === 0
      ? {}
      : {
          sandboxVerification: {
            aheadMs: verified[0]?.verification?.aheadMs,
            counts: countInventoryStatuses(verificationResults),
            staged: verified.flatMap((p) => p.verification?.staged ?? []),
            refusedExpiring: verified.flatMap((p) => p.verification?.refusedExpiring ?? []),
            passes: verified.every((p) => p.verification?.passes === true),
            results: verificationResults,
          },
        }),
  };
}

/** The heading of one account's part: its name, service and subscription. */
export function accountHeading(sandbox: Sandbox, name: string, paint: Palette): string {
  const sim = sandbox.account(name).sim;
  return `${paint.bold(`Account ${name}`)} (${sim.baseUrl}, subscription ${sim.options.subscription})`;
}

/** One line per account: what it renewed, and whether it went as staged. */
function accountLines(swept: SandboxSweep): string[] {
  return swept.parts.map((p) => {
    const c = p.summary.counts;
    const parts = OUTCOMES.filter((o) => (c[o] ?? 0) > 0).map((o) => `${c[o]} ${o}`);
    const due = `${c.due} due${parts.length > 0 ? `: ${parts.join(", ")}` : ""}`;
    const how = p.passes ? (p.staged.length > 0 ? "as staged" : "ok") : "FAILED";
    return `  ${p.account}: ${due} (${how})`;
  });
}

/** One account's part for people: its sweep, the staged note, its verification. */
export function renderAccountPart(
  sandbox: Sandbox,
  part: SandboxAccountSweep,
  paint: Palette,
  width: number | undefined,
): string[] {
  const lines = ["", ...wrapToWidth(accountHeading(sandbox, part.account, paint), width ?? 80), ""];
  const all = loadSettings(sandbox.settings);
  const declared = all.accounts.find((a) => a.name === part.account);
  const settings = declared ? settingsOf(all, declared) : undefined;
  lines.push(...renderSweep(part.summary, paint, width, settings));
  if (part.staged.length > 0) {
    const note = `${paint.bold("Expected in the sandbox:")} the simulator refuses the renewal of ${part.staged.join(", ")} on purpose, to show what a failure looks like. Against a real service that failure makes the sweep exit with code 1; here it is part of the demo${part.passes ? ", so the exit code is 0" : ""}.`;
    lines.push("", ...wrapToWidth(note, width ?? 80));
  }
  lines.push(...sandboxWindowsNote(part.summary, paint, width));
  if (part.verification) lines.push(...renderSandboxVerification(part.verification, paint, width));
  if (part.ari) lines.push(...renderSandboxAri(part.ari, paint, width));
  if (part.events) lines.push(...renderSandboxEvent(part.events, paint, width));
  if (part.transparency) lines.push(...renderSandboxTransparency(part.transparency, paint, width));
  if (part.estate) lines.push(...renderSandboxEstate(part.estate, paint, width));
  return lines;
}

/**
 * Every account's preflight in one table, the first thing `npm start` shows after its banner
 * (each account's preflight ran just before that account's sweep), what the sandbox stages in
 * it, and why the sweeps that follow send those renewals anyway.
 */
export function renderSandboxPreflight(
  parts: readonly SandboxAccountSweep[],
  paint: Palette,
  width: number | undefined,
): string[] {
  const results = parts.flatMap((p) => p.preflight.results);
  const heading = `${paint.bold("Preflight")}, run before each account's sweep below: will each due certificate renew? (certsched preflight)`;
  const lines = ["", ...wrapToWidth(heading, width ?? 80)];
  for (const p of parts) {
    if (p.preflight.error !== undefined) {
      lines.push(
        ...wrapToWidth(
          `  ${p.account}: preflight could not run: ${p.preflight.error}`,
          width ?? 80,
        ),
      );
    }
  }
  if (results.length === 0) return [...lines, "  nothing due to check."];
  lines.push(...renderPreflight(results, paint, width, parts.length > 1));
  const why = parts.flatMap((p) =>
    p.stagedPreflight.map((name) =>
      name === SAMPLE_CAA_FORBIDDEN
        ? `${name} (a CAA record on its domain allows another certificate authority only: caa-forbids)`
        : `${name} (its DNS zone is not in the resource group it names: dns-zone-missing, which is why the simulator refuses its renewal)`,
    ),
  );
  if (why.length > 0) {
    const note = `${paint.bold("Expected in the sandbox:")} preflight finds on purpose that ${why.join(" and ")} will fail, days before a renewal would spend a request on it. With storage, a sweep holds such a renewal back, blocked (preflight: <reason>), until a person fixes it or forces it (certsched renew --force). ${sentAnyway(parts)}`;
    lines.push("", ...wrapToWidth(note, width ?? 80));
  }
  return lines;
}

/**
 * Why the sweeps below do not hold back what preflight says will fail, and what became of each:
 * a sweep reads the last preflight from storage, and the sandbox keeps none (its ledgers are in
 * memory), so nothing is blocked and the simulator answers as it does.
 */
function sentAnyway(parts: readonly SandboxAccountSweep[]): string {
  const fates = parts.flatMap((p) =>
    p.stagedPreflight.map((name) => {
      const outcome = p.summary.results.find((r) => r.certificateName === name)?.outcome;
      if (outcome === "failed") return `${name} is sent and fails (the simulator refuses it)`;
      if (outcome === "would-renew") return `${name} would be sent (a dry run sends nothing)`;
      if (outcome === "renewal-scheduled") {
        const why = name === SAMPLE_CAA_FORBIDDEN ? " (the simulator does not check CAA)" : "";
        return `${name} is sent and scheduled${why}`;
      }
      return `${name} comes out ${outcome ?? "not swept"}`;
    }),
  );
  return `The sandbox keeps no storage, where a sweep reads the last preflight, so its sweeps below do not hold these renewals back: ${fates.join(", and ")}.`;
}

/**
 * The sandbox sweep as the CLI runs it: banner, every account's preflight, each account's part,
 * one line per account; or one JSON document. Exit 0 when nothing but what is staged went wrong in any account.
 * `options.sandbox`: a sandbox the caller started (and closes); default a new one, closed here.
 */
export async function sweepSandbox(
  io: Io,
  options: { json: boolean; sandbox?: Sandbox; account?: string | undefined },
  sweep: (runtime: AccountPorts) => Promise<SweepSummary>,
): Promise<number> {
  // An unknown --account is a usage error before any simulator starts.
  const names = SANDBOX_ACCOUNT_NAMES;
  if (options.account !== undefined && !names.includes(options.account)) {
    throw unknownAccount(options.account, names);
  }
  const sandbox = options.sandbox ?? (await startSandbox());
  let swept: SandboxSweep;
  try {
    const out = options.json ? io.stderr : io.stdout;
    const paint = palette(out, io.env);
    const banner = sandboxBanner(sandbox, paint).flatMap((l) => wrapToWidth(l, out.columns ?? 80));
    out.write(`${banner.join("\n")}\n`);
    swept = await sweepSandboxAccounts(sandbox, sweep, {
      ...(options.account === undefined ? {} : { account: options.account }),
      // On stderr: a progress line for people; the document on stdout stays one document.
      before: (account) => {
        if (options.json) io.stderr.write(`certsched: sweeping account ${account}\n`);
      },
    });
    if (options.json) {
      io.stdout.write(`${JSON.stringify(sandboxSweepDocument(sandbox, swept), null, 2)}\n`);
    } else {
      const width = io.stdout.columns;
      // In the order things happened: the preflight that ran ahead of each sweep, then each
      // account's sweep and verification, then one line per account.
      const lines = renderSandboxPreflight(swept.parts, paint, width);
      for (const part of swept.parts) lines.push(...renderAccountPart(sandbox, part, paint, width));
      lines.push(
        "",
        paint.bold(`${swept.parts.length} account${swept.parts.length === 1 ? "" : "s"}:`),
        ...accountLines(swept),
      );
      io.stdout.write(`${lines.join("\n")}\n`);
    }
  } finally {
    if (options.sandbox === undefined) await sandbox.close();
  }
  return swept.passes ? EXIT.ok : EXIT.failed;
}
