import { tableHistory } from "../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../shared/adapters/storage/tableLedger.js";
import type { VerificationRecord } from "../../shared/core/ports/inventory.js";
import type { LedgerRecord } from "../../shared/core/ports/ledger.js";
import { DAY_MS, HOUR_MS } from "../../shared/lib/time.js";

/**
 * One storage account's worth of dashboard content, written through the real table stores (a
 * private Azurite, default table names, as the function app reads them): one certificate per
 * status, a watched endpoint, hostile names and texts, and secrets planted where an upstream or a
 * careless writer could have put them.
 */

/** The page's clock: every date below is relative to it, so screenshots do not drift. */
export const NOW = new Date("2026-11-23T09:30:00.000Z");
const at = (ms: number) => new Date(NOW.getTime() + ms);

/** Names that would run script or break markup if they were not escaped. */
export const HOSTILE_NAME = `"><img src=x onerror="document.title='pwned'">`;
export const HOSTILE_SCRIPT_NAME = "<script>document.title='pwned'</script>";
export const HOSTILE_DOMAIN = "evil.example</td><td>&amp;<b>bold</b>";

/** Secrets the test plants in stored texts; the page must show none of them. */
export interface Planted {
  readonly apiKey: string;
  readonly clientSecret: string;
  /** A secret part of CERTSCHED_WEBHOOK_URL (its signature). */
  readonly webhookSignature: string;
}

/** Expected status per certificate name, and days left as the row shows them. */
export const EXPECTED: ReadonlyArray<{ name: string; status: string; daysLeft: number | null }> = [
  { name: "old-contoso-com", status: "expired", daysLeft: -3 },
  { name: "shop-fabrikam-com", status: "expiring", daysLeft: 3 },
  { name: "mail-contoso-com", status: "stuck", daysLeft: 5 },
  { name: "legacy-fabrikam-com", status: "failed", daysLeft: 6 },
  { name: "login-contoso-com", status: "pending", daysLeft: 8 },
  { name: "portal-contoso-com", status: "not-landed", daysLeft: 9 },
  { name: "api-contoso-com", status: "expiring", daysLeft: 11 },
  { name: HOSTILE_NAME, status: "ok", daysLeft: 40 },
  { name: HOSTILE_SCRIPT_NAME, status: "ok", daysLeft: 41 },
  { name: "www-contoso-com", status: "ok", daysLeft: 62 },
  { name: "watch:status.contoso.com:8443", status: "unverifiable", daysLeft: null },
];

const verification = (
  domain: string,
  status: VerificationRecord["status"],
  notAfter: Date | undefined,
  detail: string,
  more: Partial<VerificationRecord> = {},
): VerificationRecord => ({
  at: at(-20 * 60_000),
  status,
  source: "tls",
  domain,
  servedNotAfter: notAfter,
  daysLeft: notAfter ? Math.floor((notAfter.getTime() - NOW.getTime()) / DAY_MS) : undefined,
  issuer: "CN=certsched sandbox CA",
  detail,
  ...more,
});

/** `days` whole days left at NOW, with some hours to spare (floor stays at `days`). */
const inDays = (days: number) => at(days * DAY_MS + 3 * HOUR_MS);

export async function seedDashboard(connectionString: string, secrets: Planted): Promise<void> {
  const location = { connectionString };
  const inventory = tableInventory(location);
  const ledger = tableLedger(location);
  const history = tableHistory(location);
  await ledger.open();

  const seen = at(-2 * HOUR_MS);
  const cert = (
    certificateName: string,
    id: number,
    rootDomain: string,
    serviceExpiry: Date | undefined,
    target = "AppService",
  ) => ({
    certificateName,
    id,
    rootDomain,
    target,
    serviceExpiry,
    source: "due-list" as const,
    seenAt: seen,
  });

  await inventory.upsert([
    cert("www-contoso-com", 101, "www.contoso.com", inDays(62)),
    cert("api-contoso-com", 102, "api.contoso.com", inDays(11), "KeyVault"),
    cert("shop-fabrikam-com", 103, "shop.fabrikam.com", inDays(3)),
    cert("mail-contoso-com", 104, "mail.contoso.com", inDays(5)),
    cert("legacy-fabrikam-com", 105, "legacy.fabrikam.com", inDays(6)),
    cert("login-contoso-com", 106, "login.contoso.com", inDays(8)),
    cert("portal-contoso-com", 107, "portal.contoso.com", inDays(9)),
    cert("old-contoso-com", 108, "old.contoso.com", inDays(60)),
    cert(HOSTILE_NAME, 109, HOSTILE_DOMAIN, inDays(40), "<i>AppService</i>"),
    cert(HOSTILE_SCRIPT_NAME, 110, "script.example", inDays(41)),
    {
      certificateName: "watch:status.contoso.com:8443",
      rootDomain: "status.contoso.com",
      source: "watch" as const,
      seenAt: seen,
    },
  ]);

  const verifications: Array<[string, VerificationRecord]> = [
    ["www-contoso-com", verification("www.contoso.com", "ok", inDays(62), "62 days left")],
    [
      "api-contoso-com",
      verification("vault/api", "ok", inDays(11), "11 days left", { source: "keyvault" }),
    ],
    [
      "shop-fabrikam-com",
      verification("shop.fabrikam.com", "expiring", inDays(3), "3 days left", { critical: true }),
    ],
    // Renewed at the service (its expiry moved), yet the old certificate is still served.
    [
      "old-contoso-com",
      verification("old.contoso.com", "expired", at(-3 * DAY_MS + HOUR_MS), "expired 3 days ago"),
    ],
    [
      "portal-contoso-com",
      verification(
        "portal.contoso.com",
        "not-landed",
        inDays(9),
        `the renewal has not landed after 2 h; upstream said: key=${secrets.apiKey}`,
      ),
    ],
    [
      HOSTILE_NAME,
      verification(
        HOSTILE_DOMAIN,
        "ok",
        inDays(40),
        `<script>alert("detail")</script> secret ${secrets.clientSecret}`,
      ),
    ],
    [
      "watch:status.contoso.com:8443",
      verification(
        "status.contoso.com:8443",
        "unreachable",
        undefined,
        "connect ECONNREFUSED 127.0.0.1:8443",
        {
          unreachableSince: at(-HOUR_MS),
        },
      ),
    ],
  ];
  for (const [name, v] of verifications) await inventory.recordVerification(name, v);

  // The last preflight: one will-fail (a reason only a person can fix, its detail as
  // hostile as the names), one unknown, one ready; the others were never checked.
  await inventory.recordPreflight("api-contoso-com", {
    at: at(-3 * HOUR_MS),
    status: "will-fail",
    rootDomain: "api.contoso.com",
    checks: [
      {
        check: "caa",
        status: "fail",
        reason: "caa-forbids",
        detail: `contoso.com: 0 issue "digicert.com" allows none of letsencrypt.org ${HOSTILE_SCRIPT_NAME}`,
      },
      { check: "access", status: "pass", detail: "ARM answered" },
    ],
  });
  await inventory.recordPreflight("shop-fabrikam-com", {
    at: at(-3 * HOUR_MS),
    status: "unknown",
    rootDomain: "shop.fabrikam.com",
    checks: [{ check: "caa", status: "unknown", detail: "no DNS answer within 5 s" }],
  });
  await inventory.recordPreflight("www-contoso-com", {
    at: at(-3 * HOUR_MS),
    status: "ready",
    rootDomain: "www.contoso.com",
    checks: [{ check: "caa", status: "pass", detail: "no CAA record up to contoso.com" }],
  });

  const record = (
    id: number,
    certificateName: string,
    expiryAtRequest: Date,
    more: Partial<LedgerRecord>,
  ): LedgerRecord => ({
    id,
    certificateName,
    expiryAtRequest,
    firstRequestedAt: at(-HOUR_MS),
    lastRequestedAt: at(-HOUR_MS),
    outcome: "renewal-scheduled",
    attempts: 1,
    detail: undefined,
    ...more,
  });
  const rows = [
    record(104, "mail-contoso-com", inDays(5), {
      outcome: "stuck",
      firstRequestedAt: at(-2 * DAY_MS),
      lastRequestedAt: at(-DAY_MS),
      attempts: 2,
      detail: "accepted, but the certificate is still due",
    }),
    record(105, "legacy-fabrikam-com", inDays(6), {
      outcome: "failed",
      detail: `the service answered 400: subscription refused (client_secret=${secrets.clientSecret})`,
    }),
    record(106, "login-contoso-com", inDays(8), { lastRequestedAt: at(-30 * 60_000) }),
    // An earlier episode: the renewal landed (the service now reports a later expiry).
    record(101, "www-contoso-com", inDays(2), {
      firstRequestedAt: at(-20 * DAY_MS),
      lastRequestedAt: at(-20 * DAY_MS),
    }),
  ];
  for (const row of rows) {
    const written = await ledger.write(row, undefined);
    if (written === "conflict") throw new Error(`ledger row ${row.id} already exists`);
  }

  await history.append([], {
    runId: "run-1",
    trigger: "timer",
    startedAt: at(-6.5 * HOUR_MS),
    finishedAt: at(-6.5 * HOUR_MS + 4_000),
    dryRun: false,
    failed: true,
    ledger: "table",
    counts: { due: 6, "renewal-scheduled": 3, failed: 1, stuck: 1 },
    problems: [
      `legacy-fabrikam-com: the service refused the renewal (api-key ${secrets.apiKey})`,
      `webhook ${secrets.webhookSignature} answered 500 <b>bold</b>`,
    ],
  });
  await history.recordRequests(
    Array.from({ length: 9 }, (_, i) => ({
      at: at(-i * DAY_MS),
      operation: i % 3 === 0 ? "list" : "renew",
      trigger: "timer" as const,
    })),
  );
}
