import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { accountNotifier, webhookBody } from "../../../../shared/adapters/notify/notifier.js";
import { verificationBody } from "../../../../shared/adapters/notify/verificationMessage.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { createServices, type Services } from "../../../../shared/app/services.js";
import type { EstateAlert } from "../../../../shared/core/estate/estateAlert.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { Notifier, VerificationNotice } from "../../../../shared/core/ports/notifier.js";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type SimAccounts, startSimAccounts } from "../../../support/accounts.js";
import { collectingLogger } from "../../../support/app.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

/*
 * Webhooks name the account: one webhook serves every account, so each message says whose sweep or
 * certificate it is. Two accounts on their own simulators, a real sweep of each, and a receiver on
 * a socket that sees what was posted.
 */

const A = "contoso";
const B = "fabrikam-eu";
let accounts: SimAccounts;
let receiver: Receiver;
let services: Services | undefined;

beforeEach(async () => {
  receiver = await startReceiver();
  accounts = await startSimAccounts([A, B], (name) => ({
    certificates: [
      {
        certificateName: "www",
        rootDomain: `${name}.example`,
        expiryDate: new Date(Date.now() + 5.5 * DAY_MS),
        // contoso's renewal is refused: its sweep fails and posts.
        ...(name === A ? { refuseRenewal: "Renewal refused: DNS zone not found" } : {}),
      },
    ],
  }));
});

afterEach(async () => {
  await services?.close();
  services = undefined;
  await accounts.close();
  await receiver.close();
});

function start(format: string): Services {
  services = createServices(
    loadSettings({
      ...accounts.env(),
      CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
      CERTSCHED_WEBHOOK_FORMAT: format,
      CERTSCHED_NOTIFY_SUCCESS: "true",
    }),
    { ledger: () => memoryLedger() },
  );
  return services;
}

describe("sweep webhooks with two accounts", () => {
  it("json: each account's message carries its account; the failed one is contoso's", async () => {
    const s = start("json");
    const { log, lines } = collectingLogger();
    for (const name of [A, B]) await sweep(s.forAccount(name), log);
    // The webhook's own log lines say whose message went out.
    expect(lines.map((l) => l.message)).toEqual(
      expect.arrayContaining([
        `certsched webhook notified (json, 202) (account ${A})`,
        `certsched webhook notified (json, 202) (account ${B})`,
      ]),
    );
    const posted = receiver.received.map(
      (r) => r.json as { account: string; status: string; certificates: unknown[] },
    );
    expect(posted.map((m) => [m.account, m.status])).toEqual([
      [A, "failed"],
      [B, "succeeded"],
    ]);
    expect(posted[0]?.certificates).toEqual([
      expect.objectContaining({ certificateName: "www", outcome: "failed" }),
    ]);
    const texts = [...receiver.received.map((r) => r.body), ...lines.map((l) => l.message)];
    for (const secret of accounts.secrets()) {
      for (const text of texts) expect(text).not.toContain(secret);
    }
  });

  it("slack: the title and the facts name the account", async () => {
    const s = start("slack");
    const { log } = collectingLogger();
    await sweep(s.forAccount(A), log);
    const [message] = receiver.received;
    const body = message?.json as { text: string; blocks: { text: { text: string } }[] };
    expect(body.blocks[0]?.text.text).toBe("certsched: renewal sweep of account contoso failed");
    expect(body.blocks[1]?.text.text).toMatch(/^\*Account:\* contoso {3}\*Due:\* 1/);
  });
});

const SUMMARY: SweepSummary = {
  dryRun: false,
  startedAt: "2026-03-01T00:00:00.000Z",
  durationMs: 1,
  ledger: "memory",
  results: [],
  rejected: [],
  counts: {
    due: 0,
    "renewal-scheduled": 0,
    "would-renew": 0,
    skipped: 0,
    failed: 0,
    stuck: 0,
    blocked: 0,
    "not-attempted": 0,
    deferred: 0,
    waiting: 0,
    disabled: 0,
  },
  failed: false,
  problems: [],
};

const NOTICE: VerificationNotice = {
  kind: "bad",
  certificateName: "www",
  domain: "www.contoso.example",
  to: "expired",
  critical: true,
  pastGrace: false,
};

describe("messages without declared accounts", () => {
  it("read as they always did; JSON says default", () => {
    expect(JSON.parse(webhookBody(SUMMARY, "json"))).toMatchObject({
      account: "default",
      title: "certsched: renewal sweep succeeded",
    });
    expect(webhookBody({ ...SUMMARY, account: "default" }, "slack")).not.toContain("account");
    expect(verificationBody({ ...NOTICE, account: "default" }, "teams")).not.toContain("default");
  });

  it("name the account in every format when accounts are declared", () => {
    const notice = { ...NOTICE, account: B };
    expect(JSON.parse(verificationBody(notice, "json", true))).toMatchObject({ account: B });
    const teams = verificationBody(notice, "teams", true);
    expect(teams).toContain(
      "certsched: www (www.contoso.example) of account fabrikam-eu is expired",
    );
    expect(teams).toContain('{"title":"Account","value":"fabrikam-eu"}');
  });
});

describe("accountNotifier", () => {
  it("fills in the account of every summary and notice, keeping one already named", async () => {
    const seen: {
      summaries: SweepSummary[];
      notices: VerificationNotice[];
      estate: EstateAlert[];
    } = {
      summaries: [],
      notices: [],
      estate: [],
    };
    const inner: Notifier = {
      notify: async (summary) => {
        seen.summaries.push(summary);
        return "sent";
      },
      notifyVerification: async (notices) => {
        seen.notices.push(...notices);
        return "sent";
      },
      notifyPreflight: async () => "sent",
      notifyIssuances: async () => "sent",
      notifyVaultAlerts: async () => "sent",
      notifyEstate: async (alert) => {
        seen.estate.push(alert);
        return "sent";
      },
      close: async () => {},
    };
    const { log } = collectingLogger();
    const notifier = accountNotifier(inner, A);
    const estate = { entries: [], expiringDays: 30, at: new Date(0) };
    await notifier.notifyEstate(estate, log);
    await notifier.notifyEstate({ ...estate, account: B }, log);
    expect(seen.estate.map((e) => e.account)).toEqual([A, B]);
    await notifier.notify(SUMMARY, log);
    await notifier.notify({ ...SUMMARY, account: B }, log);
    await notifier.notifyVerification([NOTICE, { ...NOTICE, account: B }], log);
    expect(seen.summaries.map((s) => s.account)).toEqual([A, B]);
    expect(seen.notices.map((n) => n.account)).toEqual([A, B]);
  });
});
