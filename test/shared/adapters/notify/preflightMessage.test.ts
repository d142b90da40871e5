import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  accountNotifier,
  createNotifier,
  MAX_PREFLIGHT_MESSAGES,
} from "../../../../shared/adapters/notify/notifier.js";
import { preflightBody } from "../../../../shared/adapters/notify/preflightMessage.js";
import { type Notifier, noNotifier } from "../../../../shared/core/ports/notifier.js";
import { PREFLIGHT_ADVICE } from "../../../../shared/core/preflight/advice.js";
import { changeOf, type PreflightChange } from "../../../../shared/core/preflight/changes.js";
import type { PreflightResult } from "../../../../shared/core/preflight/preflight.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { collectingLogger } from "../../../support/app.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

const AT = new Date("2026-03-01T05:30:00.000Z");

/** A will-fail result as the use case makes it: two failed checks, one passed. */
function willFail(extra: Partial<PreflightResult> = {}): PreflightResult {
  return {
    account: "contoso",
    certificateName: "www-contoso-com",
    rootDomain: "www.contoso.com",
    status: "will-fail",
    checks: [
      {
        check: "caa",
        status: "fail",
        reason: "caa-forbids",
        detail: 'CAA at contoso.com: 0 issue "other-ca.example" allows none of letsencrypt.org',
      },
      {
        check: "app-binding",
        status: "fail",
        reason: "hostname-not-bound",
        detail: "www.contoso.com is not bound to site app-contoso",
      },
      { check: "access", status: "pass", detail: "ARM answered" },
    ],
    at: AT,
    ...extra,
  };
}

const ready = (extra: Partial<PreflightResult> = {}): PreflightResult => ({
  ...willFail(),
  status: "ready",
  checks: [{ check: "caa", status: "pass", detail: "no CAA record" }],
  ...extra,
});

/** The change of a first check finding will-fail, 12 days before expiry. */
function change(result = willFail(), before?: PreflightResult["status"]): PreflightChange {
  const made = changeOf(before, result, new Date(AT.getTime() + 12.5 * DAY_MS));
  if (!made) throw new Error("no change");
  return made;
}

type TeamsBody = { attachments: { content: { body: { text?: string; facts?: unknown[] }[] } }[] };
type SlackBody = { text: string; blocks: { text: { text: string } }[] };

describe("preflight webhook messages", () => {
  it("json: names the certificate, account, domain, each failed check with reason, detail and advice", () => {
    const body = JSON.parse(preflightBody(change(), "json"));
    expect(body).toEqual({
      source: "certsched",
      event: "preflight",
      account: "contoso",
      status: "will-fail",
      title: "certsched: www-contoso-com (www.contoso.com) will fail to renew",
      certificateName: "www-contoso-com",
      domain: "www.contoso.com",
      daysLeft: 12,
      failures: [
        {
          check: "caa",
          reason: "caa-forbids",
          detail: 'CAA at contoso.com: 0 issue "other-ca.example" allows none of letsencrypt.org',
          advice: PREFLIGHT_ADVICE["caa-forbids"],
        },
        {
          check: "app-binding",
          reason: "hostname-not-bound",
          detail: "www.contoso.com is not bound to site app-contoso",
          advice: PREFLIGHT_ADVICE["hostname-not-bound"],
        },
      ],
      text: expect.stringContaining("caa: caa-forbids: CAA at contoso.com"),
    });
    expect(body.text).toContain(`What to do: ${PREFLIGHT_ADVICE["hostname-not-bound"]}`);
    expect(body.text).toContain("Was: not checked before");
  });

  it("json: back to ready says so, with what it was", () => {
    const body = JSON.parse(preflightBody(change(ready(), "will-fail"), "json"));
    expect(body).toMatchObject({
      status: "ready",
      from: "will-fail",
      failures: [],
      title: "certsched: www-contoso-com (www.contoso.com) is ready to renew again",
    });
    expect(body.text).toContain("Every check passed");
  });

  it("teams: one card with the title, the facts and one line per failed check", () => {
    const card = (JSON.parse(preflightBody(change(), "teams", true)) as TeamsBody).attachments[0]
      ?.content.body;
    expect(card?.[0]?.text).toBe(
      "certsched: www-contoso-com (www.contoso.com) of account contoso will fail to renew",
    );
    expect(card?.[1]?.facts).toEqual([
      { title: "Account", value: "contoso" },
      { title: "Certificate", value: "www-contoso-com" },
      { title: "Domain", value: "www.contoso.com" },
      { title: "Preflight", value: "will fail" },
      { title: "Was", value: "not checked before" },
      { title: "Expires in", value: "12 days" },
    ]);
    const lines = card?.slice(2).map((b) => b.text) ?? [];
    expect(lines).toContain(
      `app-binding: hostname-not-bound: www.contoso.com is not bound to site app-contoso. What to do: ${PREFLIGHT_ADVICE["hostname-not-bound"]}`,
    );
  });

  it("escapes what others chose: no Teams link, no Slack mention or link, no newline", () => {
    const hostile = willFail({
      certificateName: "evil<!channel>&[Renew](https://evil.example)",
      rootDomain: "evil.example",
      checks: [
        {
          check: "caa",
          status: "fail",
          reason: "caa-forbids",
          detail: "a <https://evil.example|click here> and [x](https://evil.example)\nsecond line",
        },
      ],
    });
    const teams = preflightBody(change(hostile), "teams");
    expect(teams).not.toContain("](https://evil.example)");
    expect(teams).toContain("] (https://evil.example)");
    const slack = JSON.parse(preflightBody(change(hostile), "slack")) as SlackBody;
    const all = [slack.text, ...slack.blocks.slice(1).map((b) => b.text.text)].join("\n");
    expect(all).not.toMatch(/<!channel>|<https:/);
    expect(all).toContain("evil&lt;!channel&gt;&amp;");
    // The facts section too: the certificate's name is a fact.
    expect(slack.blocks[1]?.text.text).toContain("*Certificate:* evil&lt;!channel&gt;&amp;");
    expect(teams).not.toContain("\\nsecond line");
    expect(teams).toContain("https://evil.example) second line");
  });

  it("keeps a detail of the contract's longest (299 characters) whole, in every format", () => {
    const detail = `${"d".repeat(298)}e`;
    const long = willFail({
      checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail }],
    });
    const body = JSON.parse(preflightBody(change(long), "json"));
    expect(body.failures[0].detail).toBe(detail);
    expect(preflightBody(change(long), "teams")).toContain(`${detail}. What to do:`);
    expect(preflightBody(change(long), "slack")).toContain(`${detail}. What to do:`);
  });

  it("names the certificate alone when the record names no domain", () => {
    const body = JSON.parse(preflightBody(change(willFail({ rootDomain: null })), "json"));
    expect(body.title).toBe("certsched: www-contoso-com will fail to renew");
    expect(body.domain).toBeNull();
  });
});

describe("notifyPreflight to a webhook", () => {
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

  const make = () =>
    createNotifier({
      url: `${receiver.baseUrl}/hook/${"k".repeat(24)}?sig=${"x".repeat(32)}`,
      format: "json",
      notifySuccess: false,
      timeoutMs: 2_000,
    });

  it("posts one message per change, in order; nothing when nothing changed", async () => {
    notifier = make();
    const { log } = collectingLogger();
    const back = change(ready({ certificateName: "shop-contoso-com" }), "will-fail");
    expect(await notifier.notifyPreflight([change(), back], log)).toBe("sent");
    expect(receiver.received.map((r) => (r.json as { status: string }).status)).toEqual([
      "will-fail",
      "ready",
    ]);
    expect(await notifier.notifyPreflight([], log)).toBe("not-needed");
    expect(receiver.received).toHaveLength(2);
  });

  it("a refusing webhook fails the notice, not the run; the next is still sent; no URL logged", async () => {
    receiver.answer({ status: 500, body: "boom" }, { status: 202 });
    notifier = make();
    const { log, lines } = collectingLogger();
    expect(await notifier.notifyPreflight([change(), change()], log)).toBe("failed");
    expect(receiver.received).toHaveLength(2);
    const text = lines.map((l) => l.message).join("\n");
    expect(text).toContain("the preflight is unaffected");
    expect(text).not.toContain("k".repeat(24));
    expect(text).not.toContain("x".repeat(32));
  });

  it(`posts at most ${MAX_PREFLIGHT_MESSAGES} messages per run, and says how many changed`, async () => {
    notifier = make();
    const { log, lines } = collectingLogger();
    const many = Array.from({ length: MAX_PREFLIGHT_MESSAGES + 1 }, (_, i) =>
      change(willFail({ certificateName: `c${i}` })),
    );
    expect(await notifier.notifyPreflight(many, log)).toBe("sent");
    expect(receiver.received).toHaveLength(MAX_PREFLIGHT_MESSAGES);
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringContaining(`${MAX_PREFLIGHT_MESSAGES + 1} certificates changed preflight`),
    );
  });

  it("through an account's notifier: the log lines name the account when accounts are declared", async () => {
    notifier = make();
    const { log, lines } = collectingLogger();
    const named = accountNotifier(notifier, "contoso", true);
    expect(await named.notifyPreflight([change()], log)).toBe("sent");
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/webhook notified \(json, 202\) \(account contoso\)$/),
    );
  });

  it("without a webhook: disabled", async () => {
    const { log } = collectingLogger();
    expect(await noNotifier.notifyPreflight([change()], log)).toBe("disabled");
  });
});
