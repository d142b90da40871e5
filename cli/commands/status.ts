import { requestsLast7Days } from "../../shared/adapters/service/requestLog.js";
import { listLedgerRows } from "../../shared/adapters/storage/ledgerRows.js";
import { tableInventory } from "../../shared/adapters/storage/tableInventory.js";
import { loadVerifySettings } from "../../shared/app/config/verifySettings.js";
import type { CertificateRecord } from "../../shared/core/certificate/records.js";
import {
  type CertificateStatus,
  certificateStatus,
  type StatusWord,
} from "../../shared/core/status/certificateStatus.js";
import { withServiceRecords } from "../../shared/core/status/serviceOverlay.js";
import { ensureError } from "../../shared/lib/errors.js";
import { redact } from "../../shared/lib/redact/redact.js";
import { loadStatus } from "../../shared/usecases/steps/loadStatus.js";
import { type Command, JSON_OPTION } from "../command.js";
import { cliEnv } from "../config.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { type Paint, type Palette, palette } from "../output/color.js";
import { daysPaint } from "../output/sweepReport.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { withStorage } from "../storage.js";

const HELP = `Usage: certsched status [<certificateName>...] [--offline] [--json]

Shows each certificate certsched knows (the inventory and the renewal
ledger) with one status word, the expiry as served (the last verification)
and as the service says, the last request, its outcome and cause, and the
attempts. Without names: every certificate known. Changes nothing.

Status words, the first that applies: expired, stuck, failed (the last
request failed, or the served certificate is untrusted or names another
host), not-landed, pending (a renewal in flight, answer-unknown included),
expiring (fewer than CERTSCHED_VERIFY_WARN_DAYS days left), unverifiable,
ok, unknown (nothing known but the name).

Reads the function app's storage: CERTSCHED_LEDGER_TABLE_URI (with your own
Azure identity, DefaultAzureCredential: az login) or AzureWebJobsStorage.
When the service is configured, its due list is read once for the expiry as
it says now (one request, counted in the 7-day request count).

Options:
  --offline    Read the storage only: send no request to the service.
  --json       Print one JSON document: { "service" (reachable, unreachable,
               not-configured, not-asked), "requests7d" (requests sent to
               the service in the last 7 days; null: not readable),
               "certificates": [ { "certificateName", "id", "status", "why",
               "critical", "expiry": { "service", "serviceDaysLeft",
               "served", "servedDaysLeft" }, "ledger": null or { "outcome",
               "reason", "attempts", "firstRequestedAt", "lastRequestedAt",
               "detail", "current", "stuck" }, "verification": null or {
               "at", "status", "critical", "source", "domain",
               "servedNotAfter", "daysLeft", "detail" }, "inventory": null
               or { "source", "target", "renewal", "rootDomain",
               "keyVaultName", "keyVaultCertificateName", "firstSeen",
               "lastSeen" } } ], "invalid": [ rows not read ] }.
  -h, --help   Show this help.

Exit codes: 0 shown; 1 the storage could not be read; 2 usage or
configuration error.
`;

/** Words a person must act on: red, their reasons in full under the table. */
const ACT: ReadonlySet<StatusWord> = new Set(["expired", "stuck", "failed", "not-landed"]);
/** Words worth a look: yellow. */
const LOOK: ReadonlySet<StatusWord> = new Set(["expiring", "unverifiable", "pending"]);

function note(io: Io, text: string): void {
  io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns, "").join("\n")}\n`);
}

/** "2026-11-23 20:46": minutes are enough to a person, and UTC everywhere. */
export const minute = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "-");

/** "2026-05-06 5d" or "2026-05-06 expired": the date and whole days left, narrow. */
function expiryCell(
  iso: string | null,
  days: number | null,
  paint: Palette,
): ReturnType<typeof cell> {
  if (iso === null || days === null) return "-";
  return cell(`${iso.slice(0, 10)} ${days >= 0 ? `${days}d` : "expired"}`, daysPaint(days, paint));
}

const cell = (text: string, paint?: Paint) => (paint ? { text, paint } : text);

function wordPaint(s: CertificateStatus, paint: Palette): Paint | undefined {
  const word = s.status;
  if (ACT.has(word) || s.critical) return paint.red;
  if (LOOK.has(word)) return paint.yellow;
  return word === "ok" ? paint.green : undefined;
}

/** Whether a certificate's reason is printed in full under the table. */
const explained = (s: CertificateStatus) =>
  ACT.has(s.status) ||
  s.status === "unverifiable" ||
  (s.status === "pending" && s.ledger?.outcome === "answer-unknown");

function render(statuses: readonly CertificateStatus[], io: Io): string[] {
  const paint = palette(io.stdout, io.env);
  if (statuses.length === 0) {
    return ["certsched knows no certificate yet: the inventory and the renewal ledger are empty."];
  }
  const lines = renderTable(
    [
      { heading: "CERTIFICATE", shrink: 1 },
      { heading: "STATUS" },
      { heading: "SERVED" },
      { heading: "SERVICE" },
      { heading: "LAST REQUEST" },
      { heading: "TRIES" },
    ],
    statuses.map((s) => [
      s.certificateName,
      cell(s.status, wordPaint(s, paint)),
      expiryCell(s.expiry.served, s.expiry.servedDaysLeft, paint),
      expiryCell(s.expiry.service, s.expiry.serviceDaysLeft, paint),
      minute(s.ledger?.lastRequestedAt ?? null),
      s.ledger ? String(s.ledger.attempts) : "-",
    ]),
    { header: paint.bold, width: io.stdout.columns },
  );
  // The reasons in full, under the table: a cut cause is no use at 2 a.m.
  const reasons = statuses.filter(explained);
  if (reasons.length > 0) lines.push("");
  for (const s of reasons) {
    const outcome = s.ledger
      ? ` [${s.ledger.outcome}${s.ledger.reason ? `, ${s.ledger.reason}` : ""}]`
      : "";
    lines.push(
      ...wrapToWidth(
        oneLine(`${s.certificateName} ${s.status}${outcome}: ${s.why}`),
        io.stdout.columns,
        "",
        "  ",
      ),
    );
  }
  return lines;
}

export const statusCommand: Command = {
  name: "status",
  help: HELP,
  options: { ...JSON_OPTION, offline: { type: "boolean" } },
  maxPositionals: 1_000,
  run: (args, io) =>
    withStorage(io, async ({ where, service, history, now: clock }) => {
      // The same settings again, for CERTSCHED_VERIFY_WARN_DAYS: their name warnings were
      // already written once, by withStorage.
      const { env } = await cliEnv({ ...io, stderr: { ...io.stderr, write: () => {} } });
      const warnDays = loadVerifySettings(env).warnDays;
      let due: CertificateRecord[] = [];
      let serviceState: "reachable" | "unreachable" | "not-configured" | "not-asked" =
        "not-configured";
      if (args.values.offline === true) {
        serviceState = "not-asked";
      } else if (service?.settings.subscriptionId) {
        try {
          due = (await service.client.listDue()).certificates;
          serviceState = "reachable";
        } catch (error) {
          serviceState = "unreachable";
          note(
            io,
            `certsched: the due list could not be read, so the expiry as the service says is the inventory's: ${redact(ensureError(error).message)}`,
          );
        }
      }
      const now = clock();
      const inventory = withServiceRecords(
        service?.inventory ?? tableInventory(where),
        due,
        now,
        "due-list",
      );
      const loaded = await loadStatus(
        { inventory, ledgerRows: () => listLedgerRows(where) },
        args.positionals.length > 0 ? { names: args.positionals } : {},
      );
      const options = {
        now,
        graceMs: service?.settings.renewalGraceMs ?? 2 * 3_600_000,
        warnDays,
      };
      const statuses = loaded.inputs.map((input) => certificateStatus(input, options));
      const requests7d = await requestsLast7Days({ requests: service?.requests, history }, now);

      if (args.values.json === true) {
        const document = {
          service: serviceState,
          requests7d,
          certificates: statuses,
          invalid: loaded.invalid,
          ...(loaded.truncated ? { truncated: true } : {}),
        };
        io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      } else {
        const lines = render(statuses, io);
        lines.push("", `Requests sent to the service in the last 7 days: ${requests7d ?? "-"}`);
        io.stdout.write(`${lines.join("\n")}\n`);
      }
      if (loaded.truncated) {
        note(
          io,
          `certsched: the first ${statuses.length} certificates by name; name the ones you want`,
        );
      }
      for (const problem of loaded.invalid) note(io, `certsched: ${problem}`);
      return EXIT.ok;
    }),
};
