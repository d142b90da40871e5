import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { accountNotifier, createNotifier } from "../../../../shared/adapters/notify/notifier.js";
import { vaultAlertBody } from "../../../../shared/adapters/notify/vaultAlertMessage.js";
import { type Notifier, noNotifier } from "../../../../shared/core/ports/notifier.js";
import type { VaultAlert } from "../../../../shared/core/vaultEvents/vaultAlert.js";
import { collectingLogger } from "../../../support/app.js";
import { SAMPLE_SUBSCRIPTION, SAMPLE_VERSION } from "../../../support/vaultEvents.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

/**
 * The webhook message of a Key Vault event's alert (vaultAlertMessage.ts) in each format, and
 * the notifier posting one per alert to a webhook over a real socket.
 */

const alert = (fields: Partial<VaultAlert> = {}): VaultAlert => ({
  account: "contoso",
  kind: "unmanaged",
  event: "near-expiry",
  vaultName: "kv-contoso",
  certificateName: "www-contoso-example",
  version: SAMPLE_VERSION,
  subscriptionId: SAMPLE_SUBSCRIPTION,
  resourceGroup: "rg-certs",
  expiresAt: new Date("2027-02-28T10:00:00Z"),
  detail: "unmanaged certificate expiring: kv-contoso/www-contoso-example in subscription …",
  ...fields,
});

type TeamsBody = {
  attachments: {
    content: { body: { text?: string; facts?: { title: string; value: string }[] }[] };
  }[];
};
type SlackBody = { text: string; blocks: { text: { text: string } }[] };

function teamsTexts(body: string): string[] {
  const card = (JSON.parse(body) as TeamsBody).attachments[0]?.content.body ?? [];
  return card.flatMap((b) => [
    ...(b.text === undefined ? [] : [b.text]),
    ...(b.facts ?? []).flatMap((f) => [f.title, f.value]),
  ]);
}

function slackTexts(body: string): string[] {
  const slack = JSON.parse(body) as SlackBody;
  return [slack.text, ...slack.blocks.slice(1).map((b) => b.text.text)];
}

/** A raw control character (a newline only where `newlines`), or a bidi override. */
function hasRaw(text: string, newlines = false): boolean {
  return [...text].some((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return (c < 0x20 && !(newlines && c === 0x0a)) || c === 0x7f || c === 0x202e;
  });
}

describe("vault alert webhook messages", () => {
  it("json: every field, the account, source and event", () => {
    const body = JSON.parse(vaultAlertBody(alert({ kind: "at-risk", managedName: "www" }), "json"));
    expect(body).toEqual({
      source: "certsched",
      event: "vault-alert",
      account: "contoso",
      kind: "at-risk",
      vaultEvent: "near-expiry",
      vaultName: "kv-contoso",
      certificateName: "www-contoso-example",
      version: SAMPLE_VERSION,
      subscriptionId: SAMPLE_SUBSCRIPTION,
      resourceGroup: "rg-certs",
      expiresAt: "2027-02-28T10:00:00.000Z",
      managedName: "www",
      detail: alert().detail,
      title: "certsched: kv-contoso/www-contoso-example expires with nothing to renew it in time",
      text: expect.stringContaining("Resource group: rg-certs"),
    });
    // Without declared accounts the JSON still has one: the default's when the alert names none.
    expect(JSON.parse(vaultAlertBody(alert({ account: undefined }), "json")).account).toBe(
      "default",
    );
  });

  it("teams and slack: the title names the account when accounts are declared, the facts where it lives", () => {
    const teams = teamsTexts(vaultAlertBody(alert(), "teams", true));
    expect(teams[0]).toBe(
      "certsched: unmanaged certificate expiring: kv-contoso/www-contoso-example of account contoso",
    );
    expect(teams).toEqual(
      expect.arrayContaining([
        "Subscription",
        SAMPLE_SUBSCRIPTION,
        "Resource group",
        "rg-certs",
        "Expires",
        "2027-02-28T10:00:00Z",
      ]),
    );
    expect(teamsTexts(vaultAlertBody(alert(), "teams")).join("\n")).not.toContain("Account");
    const slack = slackTexts(vaultAlertBody(alert(), "slack", true)).join("\n");
    expect(slack).toContain("of account contoso");
    expect(slack).toContain("Why: unmanaged certificate expiring");
  });

  it("escapes hostile text in every format: no mention, link, newline, control or bidi", () => {
    const hostile = alert({
      account: "<!channel>\u202e",
      resourceGroup: "[x](https://evil.example)",
      detail: "a\nb <https://evil.example|click> \u001b[2J",
    });
    const teams = teamsTexts(vaultAlertBody(hostile, "teams", true)).join("\n");
    expect(teams).not.toContain("](https://evil.example)");
    const slack = slackTexts(vaultAlertBody(hostile, "slack", true)).join("\n");
    expect(slack).not.toMatch(/<!channel>|<https:/);
    const json = JSON.parse(vaultAlertBody(hostile, "json"));
    for (const text of [teams, slack, json.text, json.detail, json.account]) {
      expect(hasRaw(text, true)).toBe(false);
    }
    expect(json.detail).toContain("a\\u{0a}b");
  });
});

describe("notifyVaultAlerts to a webhook", () => {
  let receiver: Receiver;
  let notifier: Notifier | undefined;

  beforeEach(async () => {
    notifier = undefined;
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await notifier?.close();
    await receiver.close();
  });

  const make = (format: "json" | "teams" | "slack") =>
    createNotifier({
      url: `${receiver.baseUrl}/hook/${"k".repeat(24)}?sig=${"x".repeat(32)}`,
      format,
      notifySuccess: false,
      timeoutMs: 2_000,
      namedAccounts: true,
    });

  for (const format of ["json", "teams", "slack"] as const) {
    it(`${format}: one message per alert, in order, with CERTSCHED_NOTIFY_SUCCESS off`, async () => {
      notifier = make(format);
      const { log } = collectingLogger();
      const alerts = [alert({ version: "v1" }), alert({ version: "v2", kind: "at-risk" })];
      expect(await notifier.notifyVaultAlerts(alerts, log)).toBe("sent");
      expect(receiver.received.map((r) => r.body.includes("v1"))).toEqual([true, false]);
      expect(receiver.received[1]?.body).toContain("v2");
      expect(await notifier.notifyVaultAlerts([], log)).toBe("not-needed");
      expect(receiver.received).toHaveLength(2);
    });
  }

  it("a refusing webhook fails the outcome, the next is still sent; unreachable: failed, never a throw", async () => {
    receiver.answer({ status: 500, body: "boom" }, { status: 202 });
    notifier = make("json");
    const { log, lines } = collectingLogger();
    expect(await notifier.notifyVaultAlerts([alert(), alert({ version: "v2" })], log)).toBe(
      "failed",
    );
    expect(receiver.received).toHaveLength(2);
    const text = lines.map((l) => l.message).join("\n");
    expect(text).toContain("the Key Vault event is unaffected");
    expect(text).not.toContain("x".repeat(32));
    await receiver.close();
    await expect(notifier.notifyVaultAlerts([alert()], log)).resolves.toBe("failed");
    receiver = await startReceiver();
  });

  it("an account's notifier names the account in an alert that names none", async () => {
    notifier = make("json");
    const { log } = collectingLogger();
    const fabrikam = accountNotifier(notifier, "fabrikam", true);
    await fabrikam.notifyVaultAlerts([alert({ account: undefined }), alert()], log);
    expect(receiver.received.map((r) => (r.json as { account: string }).account)).toEqual([
      "fabrikam",
      "contoso",
    ]);
    expect(await noNotifier.notifyVaultAlerts([alert()], log)).toBe("disabled");
  });
});
