import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { issuanceBody } from "../../../../shared/adapters/notify/issuanceMessage.js";
import { accountNotifier, createNotifier } from "../../../../shared/adapters/notify/notifier.js";
import { type Notifier, noNotifier } from "../../../../shared/core/ports/notifier.js";
import type { Issuance, SeenIssuance } from "../../../../shared/core/transparency/issuance.js";
import { collectingLogger } from "../../../support/app.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const CERT = "a".repeat(64);

function seen(extra: Partial<SeenIssuance> = {}, issuance: Partial<Issuance> = {}): SeenIssuance {
  return {
    account: "contoso",
    watched: "contoso.com",
    firstSeenAt: new Date("2026-05-30T10:00:00.000Z"),
    verdict: {
      kind: "unexpected",
      since: new Date("2026-05-30T10:00:00.000Z"),
      why: "no certificate certsched knows has its public key, and certsched sent no request for these names",
    },
    issuance: {
      id: "1234567890",
      certSha256: CERT,
      notBefore: new Date("2026-05-30T09:00:00.000Z"),
      notAfter: new Date("2026-08-28T09:00:00.000Z"),
      dnsNames: ["shop.contoso.com", "www.contoso.com"],
      moreNames: 0,
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      revoked: false,
      problems: [],
      ...issuance,
    },
    ...extra,
  };
}

type TeamsBody = {
  attachments: {
    content: { body: { text?: string; facts?: { title: string; value: string }[] }[] };
  }[];
};
type SlackBody = { text: string; blocks: { text: { text: string } }[] };

/** Every text a Teams card shows. */
function teamsTexts(body: string): string[] {
  const card = (JSON.parse(body) as TeamsBody).attachments[0]?.content.body ?? [];
  return card.flatMap((b) => [
    ...(b.text === undefined ? [] : [b.text]),
    ...(b.facts ?? []).flatMap((f) => [f.title, f.value]),
  ]);
}

/** Every text a Slack message shows (the header is plain text: Slack reads no syntax there). */
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

const HOSTILE = [
  "<img src=x onerror=alert(1)>.contoso.com",
  "[Sign in](https://evil.example).contoso.com",
  "<!channel>.contoso.com",
  "<https://evil.example|click>.contoso.com",
  "line\nbreak.contoso.com",
  "esc\u001b]8;;https://evil.example\u0007.contoso.com",
  "moc.\u202eevil.contoso.com",
];

describe("issuance webhook messages", () => {
  it("json: the names, issuer, validity, why and link, with source and event", () => {
    const body = JSON.parse(issuanceBody(seen(), "json", NOW));
    expect(body).toMatchObject({
      source: "certsched",
      event: "issuance",
      account: "contoso",
      id: "1234567890",
      watched: "contoso.com",
      state: "unexpected",
      names: ["shop.contoso.com", "www.contoso.com"],
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      notBefore: "2026-05-30T09:00:00Z",
      notAfter: "2026-08-28T09:00:00Z",
      revoked: false,
      expired: false,
      link: `https://crt.sh/?sha256=${CERT}`,
      title: "certsched: unexpected certificate for shop.contoso.com, www.contoso.com",
    });
    expect(body.why).toContain("no certificate certsched knows");
    expect(body.text).toContain(`Certificate: https://crt.sh/?sha256=${CERT}`);
    expect(body.text).toContain("Valid: 2026-05-30T09:00:00Z to 2026-08-28T09:00:00Z");
  });

  it("teams: the title in red, the account named when accounts are declared, the facts", () => {
    const texts = teamsTexts(issuanceBody(seen(), "teams", NOW, true));
    expect(texts[0]).toBe(
      "certsched: unexpected certificate for shop.contoso.com, www.contoso.com of account contoso",
    );
    const card = (JSON.parse(issuanceBody(seen(), "teams", NOW, true)) as TeamsBody).attachments[0]
      ?.content.body;
    expect(card?.[0]).toMatchObject({ color: "Attention" });
    expect(card?.[1]?.facts).toEqual(
      expect.arrayContaining([
        { title: "Account", value: "contoso" },
        { title: "State", value: "unexpected" },
        { title: "Issuer", value: "C=US, O=Let's Encrypt, CN=R11" },
        { title: "Valid", value: "2026-05-30T09:00:00Z to 2026-08-28T09:00:00Z" },
      ]),
    );
    // Without declared accounts, no account in the chat message (the JSON always has it).
    expect(teamsTexts(issuanceBody(seen(), "teams", NOW)).join("\n")).not.toContain("Account");
  });

  it("says revoked and expired", () => {
    const revoked = seen({}, { revoked: true, revokedAt: new Date("2026-05-31T00:00:00Z") });
    expect(teamsTexts(issuanceBody(revoked, "teams", NOW))).toContain("unexpected, revoked");
    expect(issuanceBody(revoked, "slack", NOW)).toContain("Revoked at");
    const expired = seen({}, { notAfter: new Date("2026-05-31T00:00:00Z") });
    const json = JSON.parse(issuanceBody(expired, "json", NOW));
    expect(json).toMatchObject({ expired: true });
    expect(json.text).toContain("State: unexpected, expired");
  });

  it("escapes hostile names in every format: no link, mention, tag, newline, control or bidi", () => {
    const hostile = seen(
      { watched: "<b>contoso</b>.com" },
      { dnsNames: HOSTILE, issuer: "[CA](https://evil.example) <!here> &amp;\u202e" },
    );
    const teams = teamsTexts(issuanceBody(hostile, "teams", NOW)).join("\n");
    expect(teams).not.toContain("](https://evil.example)");
    expect(teams).toContain("] (https://evil.example)");
    const slack = slackTexts(issuanceBody(hostile, "slack", NOW)).join("\n");
    expect(slack).not.toMatch(/<!channel>|<!here>|<https:|<img|<b>/);
    expect(slack).toContain("&lt;!channel&gt;.contoso.com");
    expect(slack).toContain("&amp;amp;");
    const json = JSON.parse(issuanceBody(hostile, "json", NOW));
    for (const text of [teams, slack, json.text, ...json.names, json.issuer]) {
      expect(hasRaw(text, true)).toBe(false);
    }
    for (const text of [teams, slack, json.text, json.names.join(), json.issuer]) {
      expect(text).toContain("\\u{202e}");
    }
    expect(json.text.split("\n").every((l: string) => !l.startsWith("break.contoso.com"))).toBe(
      true,
    );
  });

  it("counts names beyond those listed, and those the watcher did not keep", () => {
    const names = Array.from({ length: 30 }, (_, i) => `n${i}.contoso.com`);
    const body = JSON.parse(issuanceBody(seen({}, { dnsNames: names, moreNames: 5 }), "json", NOW));
    expect(body.text).toContain("n19.contoso.com and 15 more");
    expect(body.names).toHaveLength(30);
    expect(body.moreNames).toBe(5);
  });

  it("an issuance with no link, issuer or dates still makes a message", () => {
    const bare = seen(
      {},
      { certSha256: undefined, issuer: undefined, notBefore: undefined, notAfter: undefined },
    );
    const json = JSON.parse(issuanceBody(bare, "json", NOW));
    expect(json.link).toBeUndefined();
    expect(json.text).toContain("Valid: unknown to unknown");
    expect(json.text).toContain("Issuer: unknown");
  });
});

describe("notifyIssuances to a webhook", () => {
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

  const make = (format: "json" | "teams" | "slack", notifySuccess = false) =>
    createNotifier({
      url: `${receiver.baseUrl}/hook/${"k".repeat(24)}?sig=${"x".repeat(32)}`,
      format,
      notifySuccess,
      timeoutMs: 2_000,
      namedAccounts: true,
      now: () => NOW,
    });

  for (const format of ["json", "teams", "slack"] as const) {
    it(`${format}: exactly one message per issuance, in order, whatever CERTSCHED_NOTIFY_SUCCESS says`, async () => {
      notifier = make(format);
      const { log } = collectingLogger();
      const many = HOSTILE.map((name, i) => seen({}, { id: `id${i}`, dnsNames: [name] }));
      expect(await notifier.notifyIssuances(many, log)).toBe("sent");
      expect(receiver.received).toHaveLength(HOSTILE.length);
      for (const [i, r] of receiver.received.entries()) {
        expect(r.method).toBe("POST");
        expect(r.json).toBeDefined();
        expect(r.body).toContain(`id${i}`);
        expect(hasRaw(r.body)).toBe(false);
        if (format !== "json") expect(r.body).toContain("of account contoso");
      }
      expect(await notifier.notifyIssuances([], log)).toBe("not-needed");
      expect(receiver.received).toHaveLength(HOSTILE.length);
    });
  }

  it("a refusing webhook fails the outcome, the next one is still sent, no URL logged", async () => {
    receiver.answer({ status: 500, body: "boom" }, { status: 202 });
    notifier = make("json");
    const { log, lines } = collectingLogger();
    const two = [seen({}, { id: "first" }), seen({}, { id: "second" })];
    expect(await notifier.notifyIssuances(two, log)).toBe("failed");
    expect(receiver.received.map((r) => (r.json as { id: string }).id)).toEqual([
      "first",
      "second",
    ]);
    const text = lines.map((l) => l.message).join("\n");
    expect(text).toContain("the Certificate Transparency watch is unaffected");
    expect(text).not.toContain("k".repeat(24));
    expect(text).not.toContain("x".repeat(32));
  });

  it("an unreachable webhook: failed, never a throw", async () => {
    notifier = make("json");
    await receiver.close();
    const { log } = collectingLogger();
    await expect(notifier.notifyIssuances([seen()], log)).resolves.toBe("failed");
    receiver = await startReceiver();
  });

  it("through an account's notifier: the log lines name the account", async () => {
    notifier = make("json");
    const { log, lines } = collectingLogger();
    const named = accountNotifier(notifier, "contoso", true);
    expect(await named.notifyIssuances([seen()], log)).toBe("sent");
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/webhook notified \(json, 202\) \(account contoso\)$/),
    );
  });

  it("without a webhook: disabled", async () => {
    const { log } = collectingLogger();
    expect(await noNotifier.notifyIssuances([seen()], log)).toBe("disabled");
  });
});
