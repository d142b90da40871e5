import { daysLeft } from "../../shared/dates.js";
import { ensureError } from "../../shared/errors.js";
import { listLedgerRows } from "../../shared/history/ledgerRows.js";
import type { LedgerRecord } from "../../shared/ledger/ledger.js";
import { requestsLast7Days } from "../../shared/quota/requestLog.js";
import { redact } from "../../shared/redact.js";
import { decide } from "../../shared/sweep/decide.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { palette } from "../output/color.js";
import { formatExpiry } from "../output/expiry.js";
import { daysPaint } from "../output/sweepReport.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import { withStorage } from "../storage.js";

const HELP = `Usage: certsched status [<certificateName>...] [--json]

Shows what the renewal ledger holds for each certificate: its state, the last
request, the reason, the cause of the last failure, the attempts, and whether
it is stuck; with the expiry as the service says (from the due list) when the
service is configured and answers. Changes nothing.

Reads the function app's storage: CERTSCHED_LEDGER_TABLE_URI (with your own
Azure identity, DefaultAzureCredential: az login) or AzureWebJobsStorage. Only
the storage is needed; without the service the expiry column says "-".

Options:
  --json       Print one JSON document: { "service", "requests7d" (requests
               sent to the service in the last 7 days; null: not readable),
               "certificates": [ {
               "certificateName", "id", "state", "reason", "attempts",
               "firstRequestedAt", "lastRequestedAt", "detail", "stuck",
               "expiryDate", "daysLeft" } ], "invalid": [ rows not read ] }.
  -h, --help   Show this help.

Exit codes: 0 shown; 1 the storage could not be read; 2 usage or
configuration error.
`;

/** One certificate's line of status. */
export interface StatusView {
  readonly certificateName: string;
  readonly id: number | null;
  /** The ledger's outcome, or "none" when it holds no row for the certificate. */
  readonly state: string;
  readonly reason: string | null;
  readonly attempts: number;
  readonly firstRequestedAt: string | null;
  readonly lastRequestedAt: string | null;
  /** The last answer or cause, as recorded (never a secret). */
  readonly detail: string | null;
  readonly stuck: boolean;
  /** Expiry as the service says (due list); null when it is not due or not known. */
  readonly expiryDate: string | null;
  readonly daysLeft: number | null;
}

type Due = { readonly id: number; readonly name: string; readonly expiryDate: Date };

function viewOf(
  name: string,
  record: LedgerRecord | undefined,
  due: Due | undefined,
  now: Date,
  graceMs: number,
): StatusView {
  const iso = (d: Date | undefined) => (d ? d.toISOString() : null);
  // Stuck as the next sweep would see it (when the service says it is still due).
  const stuck =
    record?.outcome === "stuck" ||
    (record !== undefined &&
      due !== undefined &&
      decide({ expiryDate: due.expiryDate, record, now, graceMs }).action === "stuck");
  return {
    certificateName: name,
    id: record?.id ?? due?.id ?? null,
    state: record?.outcome ?? "none",
    reason: record?.reason ?? null,
    attempts: record?.attempts ?? 0,
    firstRequestedAt: iso(record?.firstRequestedAt),
    lastRequestedAt: iso(record?.lastRequestedAt),
    detail: record?.detail ?? null,
    stuck,
    expiryDate: due ? due.expiryDate.toISOString() : null,
    daysLeft: due ? daysLeft(due.expiryDate, now) : null,
  };
}

function note(io: Io, text: string): void {
  io.stderr.write(`${wrapToWidth(oneLine(text), io.stderr.columns, "").join("\n")}\n`);
}

/** "2026-11-23 20:46": minutes are enough to a person, and UTC everywhere. */
export const minute = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "-");

export const statusCommand: Command = {
  name: "status",
  help: HELP,
  options: { ...JSON_OPTION },
  maxPositionals: 1_000,
  run: (args, io) =>
    withStorage(io, async ({ where, service, history, now: clock }) => {
      const wanted = new Set(args.positionals);
      const ledger = await listLedgerRows(where);
      let dueList: Due[] = [];
      let serviceState: "reachable" | "unreachable" | "not-configured" = "not-configured";
      if (service?.settings.subscriptionId) {
        try {
          dueList = (await service.client.listDue()).certificates.map((c) => ({
            id: c.id,
            name: c.certificateName,
            expiryDate: c.expiryDate,
          }));
          serviceState = "reachable";
        } catch (error) {
          serviceState = "unreachable";
          note(
            io,
            `certsched: the due list could not be read, so expiry is not shown: ${redact(ensureError(error).message)}`,
          );
        }
      }
      const now = clock();
      const graceMs = service?.settings.renewalGraceMs ?? 2 * 3_600_000;
      const byId = new Map(dueList.map((d) => [d.id, d]));
      const seen = new Set<string>();
      const views: StatusView[] = [];
      for (const record of ledger.items) {
        if (wanted.size > 0 && !wanted.has(record.certificateName)) continue;
        seen.add(record.certificateName);
        views.push(viewOf(record.certificateName, record, byId.get(record.id), now, graceMs));
      }
      // Due but never asked for, and names asked about that the ledger does not hold.
      for (const d of dueList) {
        if (seen.has(d.name) || (wanted.size > 0 && !wanted.has(d.name))) continue;
        seen.add(d.name);
        views.push(viewOf(d.name, undefined, d, now, graceMs));
      }
      for (const name of wanted) {
        if (!seen.has(name)) views.push(viewOf(name, undefined, undefined, now, graceMs));
      }
      views.sort((a, b) => a.certificateName.localeCompare(b.certificateName));
      const requests7d = await requestsLast7Days({ requests: service?.requests, history }, now);

      if (args.values.json === true) {
        const document = {
          service: serviceState,
          requests7d,
          certificates: views,
          invalid: ledger.invalid,
        };
        io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      } else {
        const paint = palette(io.stdout, io.env);
        const lines =
          views.length === 0
            ? ["The renewal ledger holds no certificate yet."]
            : renderTable(
                [
                  { heading: "CERTIFICATE", shrink: 1 },
                  { heading: "STATE" },
                  { heading: "TRIES" },
                  { heading: "LAST REQUEST" },
                  { heading: "EXPIRES (UTC)" },
                ],
                views.map((v) => [
                  v.certificateName,
                  {
                    text: v.stuck ? `${v.state}, stuck` : v.state,
                    paint: v.stuck || v.state === "failed" ? paint.red : undefined,
                  },
                  String(v.attempts),
                  minute(v.lastRequestedAt),
                  v.expiryDate !== null && v.daysLeft !== null
                    ? {
                        text: formatExpiry(v.expiryDate, v.daysLeft),
                        paint: daysPaint(v.daysLeft, paint),
                      }
                    : "-",
                ]),
                { header: paint.bold, width: io.stdout.columns },
              );
        // The causes in full, under the table: a cut cause is no use at 2 a.m.
        const causes = views.filter(
          (v) => v.detail && (v.state === "failed" || v.stuck || v.state === "answer-unknown"),
        );
        if (causes.length > 0) lines.push("");
        for (const v of causes) {
          lines.push(
            ...wrapToWidth(
              oneLine(`${v.certificateName} [${v.reason ?? "-"}]: ${v.detail}`),
              io.stdout.columns,
              "  ",
            ),
          );
        }
        lines.push("", `Requests sent to the service in the last 7 days: ${requests7d ?? "-"}`);
        io.stdout.write(`${lines.join("\n")}\n`);
      }
      for (const problem of ledger.invalid) note(io, `certsched: ${problem}`);
      return EXIT.ok;
    }),
};
