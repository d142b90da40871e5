import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createNotifier,
  MAX_VERIFICATION_MESSAGES,
} from "../../../../shared/adapters/notify/notifier.js";
import { verificationBody } from "../../../../shared/adapters/notify/verificationMessage.js";
import type {
  InventoryRecord,
  VerificationRecord,
} from "../../../../shared/core/ports/inventory.js";
import type { Notifier, VerificationNotice } from "../../../../shared/core/ports/notifier.js";
import type {
  InventoryResult,
  InventoryVerification,
  StatusChange,
} from "../../../../shared/core/verification/inventoryResult.js";
import {
  type BeforeRun,
  verificationNotices,
} from "../../../../shared/core/verification/notices.js";
import type { Logger } from "../../../../shared/lib/log.js";
import { registerSecret } from "../../../../shared/lib/redact/redact.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

const AT = new Date("2026-03-01T04:00:00.000Z");
const HOUR = 3_600_000;

function result(status: InventoryResult["status"], extra: Partial<InventoryResult> = {}) {
  return {
    domain: "www.contoso.com",
    certificateName: "www-contoso-com",
    source: "tls",
    status,
    ...(status === "unreachable"
      ? {}
      : { servedNotAfter: "2026-03-04T00:00:00.000Z", daysLeft: 2, issuer: "CN=Test CA" }),
    detail: `the ${status} detail`,
    ...extra,
  } as InventoryResult;
}

function run(results: InventoryResult[], changes: StatusChange[]): InventoryVerification {
  return { at: AT, results, counts: {}, failed: false, problems: [], changes };
}

function change(
  from: StatusChange["from"],
  to: StatusChange["to"],
  critical = false,
  who: Partial<StatusChange> = {},
): StatusChange {
  return {
    domain: "www.contoso.com",
    certificateName: "www-contoso-com",
    from,
    to,
    critical,
    ...who,
  };
}

/** The inventory before the run: one record whose last verification is `last`. */
function storedBefore(
  last: Partial<VerificationRecord> & Pick<VerificationRecord, "status">,
): BeforeRun {
  const record: InventoryRecord = {
    certificateName: "www-contoso-com",
    source: "due-list",
    firstSeen: new Date(AT.getTime() - 30 * 24 * HOUR),
    lastSeen: AT,
    lastVerification: {
      at: new Date(AT.getTime() - HOUR),
      source: "tls",
      domain: "www.contoso.com",
      detail: "before",
      ...last,
    },
  };
  return { records: [record], unreachableAfterMs: 24 * HOUR };
}

const kinds = (notices: VerificationNotice[]) => notices.map((n) => `${n.kind} ${n.to}`);

describe("verificationNotices: from the run's status changes", () => {
  it.each([
    ["never verified → not-landed", change(undefined, "not-landed"), ["bad not-landed"]],
    ["ok → expired", change("ok", "expired"), ["bad expired"]],
    ["ok → mismatch", change("ok", "mismatch"), ["bad mismatch"]],
    ["pending → untrusted", change("pending", "untrusted"), ["bad untrusted"]],
    ["ok → expiring, critically", change("ok", "expiring", true), ["bad expiring"]],
    ["ok → expiring, not critically: no message", change("ok", "expiring"), []],
    ["ok → pending: no message", change("ok", "pending"), []],
    ["pending → ok (the renewal landed): no message", change("pending", "ok"), []],
    ["never verified → ok: no message", change(undefined, "ok"), []],
    ["not-landed → ok", change("not-landed", "ok"), ["recovered ok"]],
    ["mismatch → ok", change("mismatch", "ok"), ["recovered ok"]],
    ["not-landed → pending: neither bad nor ok, no message", change("not-landed", "pending"), []],
  ])("%s", (_, c, expected) => {
    const r = result(c.to, c.critical ? { critical: true } : {});
    expect(kinds(verificationNotices(run([r], [c])))).toEqual(expected);
  });

  it("an endpoint that becomes unreachable is a message only once past its grace", () => {
    const within = result("unreachable", { pastGrace: false } as Partial<InventoryResult>);
    expect(verificationNotices(run([within], [change("ok", "unreachable")]))).toEqual([]);
    const past = result("unreachable", { pastGrace: true });
    const [notice] = verificationNotices(run([past], [change("ok", "unreachable")]));
    expect(notice).toMatchObject({ kind: "bad", to: "unreachable", pastGrace: true });
  });
});

describe("verificationNotices: what the inventory before the run adds", () => {
  it("expiring turning critical is a message though the status did not change", () => {
    const notices = verificationNotices(
      run([result("expiring", { critical: true, daysLeft: 6 })], []),
      storedBefore({ status: "expiring", critical: false, daysLeft: 7 }),
    );
    expect(notices).toMatchObject([
      { kind: "bad", from: "expiring", to: "expiring", critical: true },
    ]);
  });

  it("unreachable passing its grace is a message; already past it, none", () => {
    const past = result("unreachable", { pastGrace: true });
    // At the previous run it had been unreachable for 23 h of its 24 h: within its grace.
    const within = storedBefore({
      status: "unreachable",
      unreachableSince: new Date(AT.getTime() - 24 * HOUR),
    });
    expect(kinds(verificationNotices(run([past], []), within))).toEqual(["bad unreachable"]);
    // At the previous run it had been unreachable exactly 24 h: past its grace (>=), said then.
    const already = storedBefore({
      status: "unreachable",
      unreachableSince: new Date(AT.getTime() - 25 * HOUR),
    });
    expect(verificationNotices(run([past], []), already)).toEqual([]);
  });

  it("a status that stays bad is not repeated", () => {
    expect(
      verificationNotices(run([result("not-landed")], []), storedBefore({ status: "not-landed" })),
    ).toEqual([]);
  });

  it("back to ok from critically expiring or unreachable past grace, not from within grace", () => {
    const ok = [result("ok")];
    const critical = storedBefore({ status: "expiring", critical: true });
    expect(kinds(verificationNotices(run(ok, [change("expiring", "ok")]), critical))).toEqual([
      "recovered ok",
    ]);
    const pastGrace = storedBefore({
      status: "unreachable",
      unreachableSince: new Date(AT.getTime() - 30 * HOUR),
    });
    expect(kinds(verificationNotices(run(ok, [change("unreachable", "ok")]), pastGrace))).toEqual([
      "recovered ok",
    ]);
    const withinGrace = storedBefore({
      status: "unreachable",
      unreachableSince: new Date(AT.getTime() - 2 * HOUR),
    });
    expect(verificationNotices(run(ok, [change("unreachable", "ok")]), withinGrace)).toEqual([]);
  });

  it("one message per certificate even when a change and a crossing both say it", () => {
    const notices = verificationNotices(
      run([result("expiring", { critical: true })], [change("expiring", "expiring", true)]),
      storedBefore({ status: "expiring", critical: false }),
    );
    expect(notices).toHaveLength(1);
  });

  it("finds a watched endpoint's record by its domain", () => {
    const watched = result("expiring", {
      critical: true,
      certificateName: undefined,
      domain: "legacy.contoso.com:8443",
    } as Partial<InventoryResult>);
    const b: BeforeRun = {
      unreachableAfterMs: 0,
      records: [
        {
          certificateName: "watch:legacy.contoso.com:8443",
          source: "watch",
          firstSeen: AT,
          lastSeen: AT,
          lastVerification: {
            at: new Date(AT.getTime() - HOUR),
            status: "expiring",
            critical: false,
            source: "tls",
            domain: "legacy.contoso.com:8443",
            detail: "before",
          },
        },
      ],
    };
    expect(verificationNotices(run([watched], []), b)).toMatchObject([
      { kind: "bad", domain: "legacy.contoso.com:8443", certificateName: undefined },
    ]);
  });
});

const NOT_LANDED: VerificationNotice = {
  kind: "bad",
  certificateName: "www-contoso-com",
  domain: "www.contoso.com",
  from: "pending",
  to: "not-landed",
  critical: false,
  pastGrace: false,
  result: result("not-landed", {
    detail: "renewal accepted at 2026-03-01T01:00:00.000Z, more than 2 h ago, but still served",
    thumbprint: "AB12",
  }),
};

describe("verificationBody", () => {
  it("json: one certificate, what it was, what it is, as served", () => {
    const body = JSON.parse(verificationBody(NOT_LANDED, "json"));
    expect(body).toEqual({
      source: "certsched",
      event: "verification",
      account: "default",
      status: "failed",
      title: "certsched: www-contoso-com (www.contoso.com) is not-landed",
      certificateName: "www-contoso-com",
      domain: "www.contoso.com",
      from: "pending",
      to: "not-landed",
      critical: false,
      pastGrace: false,
      checked: "tls",
      servedNotAfter: "2026-03-04T00:00:00.000Z",
      daysLeft: 2,
      issuer: "CN=Test CA",
      thumbprint: "AB12",
      detail: "renewal accepted at 2026-03-01T01:00:00.000Z, more than 2 h ago, but still served",
      text: expect.stringContaining("Status: not-landed, Was: pending, Days left (as served): 2"),
    });
  });

  it("json: back to ok", () => {
    const body = JSON.parse(
      verificationBody({ ...NOT_LANDED, kind: "recovered", from: "not-landed", to: "ok" }, "json"),
    );
    expect(body).toMatchObject({
      status: "recovered",
      title: "certsched: www-contoso-com (www.contoso.com) is ok again",
    });
  });

  it("slack: a header naming the certificate and its status, facts, the cause", () => {
    const body = JSON.parse(
      verificationBody({ ...NOT_LANDED, to: "expiring", critical: true }, "slack"),
    );
    expect(body.blocks[0]).toEqual({
      type: "header",
      text: {
        type: "plain_text",
        text: "certsched: www-contoso-com (www.contoso.com) is critically expiring",
      },
    });
    expect(body.blocks[1].text.text).toContain("*Days left (as served):* 2");
    expect(body.text).toContain("is critically expiring");
  });

  it("teams: an Adaptive Card in attention colour, the facts as a FactSet", () => {
    const body = JSON.parse(verificationBody(NOT_LANDED, "teams"));
    const card = body.attachments[0].content;
    expect(card.body[0]).toMatchObject({
      text: "certsched: www-contoso-com (www.contoso.com) is not-landed",
      color: "Attention",
    });
    expect(card.body[1].facts).toContainEqual({
      title: "Served until",
      value: "2026-03-04T00:00:00.000Z",
    });
    const ok = JSON.parse(
      verificationBody({ ...NOT_LANDED, kind: "recovered", from: "not-landed", to: "ok" }, "teams"),
    );
    expect(ok.attachments[0].content.body[0].color).toBe("Good");
  });

  it("teams: a link a certificate's names or issuer spell in markdown is not a link in the card", () => {
    const hostile: VerificationNotice = {
      ...NOT_LANDED,
      certificateName: "[Approve](https://evil.example/a)",
      to: "mismatch",
      result: result("mismatch", {
        detail:
          'the certificate served does not cover www.contoso.com: it names DNS:"[Renew now](https://evil.example/login)"',
        issuer: "CN=[CA](https://evil.example/ca)",
      }),
    };
    const card = JSON.parse(verificationBody(hostile, "teams")).attachments[0].content;
    const texts = JSON.stringify(card.body);
    expect(texts).not.toContain("](");
    // The words stay, for a person to read.
    expect(texts).toContain("[Renew now] (https://evil.example/login)");
    expect(card.body[0].text).toBe(
      "certsched: [Approve] (https://evil.example/a) (www.contoso.com) is mismatch",
    );
    // JSON for a receiver of your own keeps the text as it is.
    expect(JSON.parse(verificationBody(hostile, "json")).detail).toContain(
      "[Renew now](https://evil.example/login)",
    );
  });

  it.each(["json", "slack", "teams"] as const)(
    "%s: never a secret, even one in the detail",
    (format) => {
      const secret = `s3cr3t-${randomBytes(12).toString("hex")}`;
      registerSecret(secret);
      const leaky: VerificationNotice = {
        ...NOT_LANDED,
        result: result("untrusted", { detail: `chain failed near ${secret}`, issuer: secret }),
      };
      const body = verificationBody(leaky, format);
      expect(body).not.toContain(secret);
      expect(body).toContain("[REDACTED]");
    },
  );
});

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`INFO ${m}`),
    warn: (m) => lines.push(`WARN ${m}`),
    error: (m) => lines.push(`ERROR ${m}`),
  };
}

describe("notifyVerification to a webhook", () => {
  let receiver: Receiver;
  let notifier: Notifier | undefined;

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await notifier?.close();
    await receiver.close();
  });

  const make = (format: "json" | "slack" | "teams" = "json") =>
    createNotifier({
      url: `${receiver.baseUrl}/hook/${"k".repeat(24)}?sig=${"x".repeat(32)}`,
      format,
      notifySuccess: false,
      timeoutMs: 2_000,
    });

  it("posts one message per notice, in order", async () => {
    notifier = make();
    const other = {
      ...NOT_LANDED,
      certificateName: "shop-contoso-com",
      domain: "shop.contoso.com",
    };
    expect(await notifier.notifyVerification([NOT_LANDED, other], capture())).toBe("sent");
    expect(receiver.received.map((r) => (r.json as { domain: string }).domain)).toEqual([
      "www.contoso.com",
      "shop.contoso.com",
    ]);
    expect(receiver.received[0]?.headers["content-type"]).toBe("application/json; charset=utf-8");
  });

  it("posts nothing when nothing changed", async () => {
    notifier = make();
    expect(await notifier.notifyVerification([], capture())).toBe("not-needed");
    expect(receiver.received).toEqual([]);
  });

  it("a refusing webhook fails the notice, not the run, and the URL is never logged", async () => {
    receiver.answer({ status: 500, body: "boom" }, { status: 202 });
    notifier = make();
    const log = capture();
    const other = {
      ...NOT_LANDED,
      certificateName: "shop-contoso-com",
      domain: "shop.contoso.com",
    };
    expect(await notifier.notifyVerification([NOT_LANDED, other], log)).toBe("failed");
    // The second message is still sent.
    expect(receiver.received).toHaveLength(2);
    expect(log.lines.some((l) => l.includes("the verification is unaffected"))).toBe(true);
    expect(log.lines.join("\n")).not.toContain("k".repeat(24));
    expect(log.lines.join("\n")).not.toContain("x".repeat(32));
  });

  it(`posts at most ${MAX_VERIFICATION_MESSAGES} messages per run, and says how many changed`, async () => {
    notifier = make();
    const log = capture();
    const many = Array.from({ length: MAX_VERIFICATION_MESSAGES + 1 }, (_, i) => ({
      ...NOT_LANDED,
      certificateName: `c${i}`,
    }));
    expect(await notifier.notifyVerification(many, log)).toBe("sent");
    expect(receiver.received).toHaveLength(MAX_VERIFICATION_MESSAGES);
    expect(log.lines).toContainEqual(
      expect.stringContaining(`${MAX_VERIFICATION_MESSAGES + 1} certificates changed status`),
    );
  });
});
