import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { webhookBody } from "../../../../shared/adapters/notify/notifier.js";
import { attentionLine, MAX_LISTED } from "../../../../shared/adapters/notify/sweepReport.js";
import {
  resolveWebhookFormat,
  webhookSecrets,
} from "../../../../shared/adapters/notify/webhookFormat.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { CertificateResult, SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { countOutcomes } from "../../../../shared/core/renewal/summary.js";
import { registerSecret } from "../../../../shared/lib/redact/redact.js";

function result(overrides: Partial<CertificateResult> = {}): CertificateResult {
  return {
    certificateName: "www-contoso-com",
    id: 7,
    target: "Cloud App Service",
    expiryDate: "2026-03-06T03:00:00.000Z",
    daysLeft: 5,
    outcome: "failed",
    reason: "NewRenewal",
    detail: "renew certificate failed: the service answered 400: Renewal refused",
    status: 400,
    error: "UPSTREAM_REJECTED",
    ...overrides,
  };
}

function summaryOf(results: CertificateResult[], extra: Partial<SweepSummary> = {}): SweepSummary {
  const counts = countOutcomes(results, 0);
  return {
    dryRun: false,
    startedAt: "2026-03-01T03:00:00.000Z",
    durationMs: 40,
    ledger: "table",
    results,
    rejected: [],
    counts,
    failed: counts.failed + counts.stuck > 0,
    problems: counts.failed > 0 ? [`${counts.failed} renewal(s) failed`] : [],
    ...extra,
  };
}

describe("resolveWebhookFormat", () => {
  it.each([
    ["https://hooks.slack.com/services/T000/B000/XXXX", "slack"],
    [
      "https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=x",
      "teams",
    ],
    [
      "https://default0f1e.0b.environment.api.powerplatform.com/powerautomate/automations/direct/workflows/abc/triggers/manual/paths/invoke?sig=x",
      "teams",
    ],
    ["https://contoso.webhook.office.com/webhookb2/abc", "teams"],
    ["https://alerts.contoso.com/certsched", "json"],
    // Look-alikes are not trusted to speak the format.
    ["https://hooks.slack.com.evil.example/services/x", "json"],
    ["https://notlogic.azure.com/x", "json"],
  ])("auto: %s → %s", (url, format) => {
    expect(resolveWebhookFormat("auto", url)).toBe(format);
  });

  it("an explicit setting wins over the URL", () => {
    expect(resolveWebhookFormat("json", "https://hooks.slack.com/services/T/B/X")).toBe("json");
    expect(resolveWebhookFormat("teams", "http://127.0.0.1:9/hook")).toBe("teams");
  });
});

describe("webhookSecrets", () => {
  it("names the URL, its path and its signature, not its short parameters", () => {
    const secrets = webhookSecrets(
      "https://x.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sv=1.0&sig=ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
    );
    expect(secrets).toContain("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
    expect(secrets).toContain("/workflows/abc/triggers/manual/paths/invoke");
    expect(secrets).not.toContain("2016-06-01");
    expect(webhookSecrets(undefined)).toEqual([]);
  });
});

describe("the webhook setting", () => {
  const base = {
    CERTSCHED_BASE_URL: "https://certs.example.com",
    CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
  };

  it("keeps the query of a Teams workflow URL: it carries the signature", () => {
    const url =
      "https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=abc123";
    const settings = loadSettings({ ...base, CERTSCHED_WEBHOOK_URL: url });
    expect(settings.webhookUrl).toBe(
      "https://prod-12.westeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=abc123",
    );
  });

  it.each([
    ["http://hooks.example.com/x", "must use https"],
    ["https://hooks.example.com/x#frag", "must not have a fragment"],
  ])("refuses %s", (url, message) => {
    expect(() => loadSettings({ ...base, CERTSCHED_WEBHOOK_URL: url })).toThrow(message);
  });

  it("still refuses a query on the service URLs", () => {
    expect(() =>
      loadSettings({ ...base, CERTSCHED_BASE_URL: "https://certs.example.com/?a=b" }),
    ).toThrow("must not have a query or fragment");
  });
});

describe("attentionLine", () => {
  it.each([
    [19, "19 days left"],
    [1, "1 day left"],
    [0, "expires within a day"],
    [-1, "expired 1 day ago"],
    [-4, "expired 4 days ago"],
  ])("%i days → %s", (daysLeft, text) => {
    expect(attentionLine(result({ daysLeft }))).toBe(
      `www-contoso-com (Cloud App Service): ${text}, failed: renew certificate failed: the service answered 400: Renewal refused (HTTP 400)`,
    );
  });

  it("keeps a many-line cause on one line, shortened", () => {
    const line = attentionLine(
      result({
        outcome: "stuck",
        status: undefined,
        detail: `first\n\n  second\t${"x".repeat(500)}`,
      }),
    );
    expect(line).not.toContain("\n");
    expect(line).toMatch(
      /^www-contoso-com \(Cloud App Service\): 5 days left, stuck: first second x+…$/,
    );
    expect(line.length).toBeLessThan(320);
  });
});

describe("webhookBody", () => {
  const many = Array.from({ length: 30 }, (_, i) =>
    result({ certificateName: `cert-${String(i).padStart(2, "0")}`, id: i, daysLeft: 30 - i }),
  );

  it("lists at most MAX_LISTED certificates in chat formats, most urgent first", () => {
    const teams = webhookBody(summaryOf(many), "teams");
    const card = JSON.parse(teams) as {
      attachments: Array<{ content: { body: Array<{ text?: string }> } }>;
    };
    const texts = card.attachments[0]?.content.body.map((b) => b.text ?? "") ?? [];
    const listed = texts.filter((t) => t.startsWith("cert-"));
    expect(listed).toHaveLength(MAX_LISTED);
    expect(listed[0]).toMatch(/^cert-29 .*: 1 day left/);
    expect(texts).toContain("…and 5 more");

    const slack = JSON.parse(webhookBody(summaryOf(many), "slack")) as {
      blocks: Array<{ text: { text: string } }>;
    };
    for (const block of slack.blocks) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    // Whatever fits is listed whole; the rest is counted, so every certificate is accounted for.
    const attention = slack.blocks.find((b) => b.text.text.startsWith("*Certificates"))?.text.text;
    const bullets = attention?.split("\n").filter((l) => l.startsWith("• cert-")) ?? [];
    const more = Number(/…and (\d+) more$/.exec(attention ?? "")?.[1]);
    expect(bullets.length).toBeGreaterThan(10);
    expect(bullets.length + more).toBe(30);

    const json = JSON.parse(webhookBody(summaryOf(many), "json")) as {
      certificates: unknown[];
      omitted: number;
    };
    expect(json.certificates).toHaveLength(30);
    expect(json.omitted).toBe(0);
  });

  it("breaks markdown links a certificate's name or the service's words spell in a Teams card, and keeps the words", () => {
    const hostile = result({
      certificateName: "[Renew now](https://evil.example/a)",
      detail: "renew certificate failed: the service answered 400: [click](https://evil.example/b)",
    });
    const teams = webhookBody(summaryOf([hostile]), "teams");
    expect(teams).not.toContain("](");
    expect(teams).toContain("[Renew now] (https://evil.example/a)");
    expect(teams).toContain("[click] (https://evil.example/b)");
    // JSON receivers get the words as they were: they render nothing.
    const json = webhookBody(summaryOf([hostile]), "json");
    expect(json).toContain("[Renew now](https://evil.example/a)");
  });

  it("escapes Slack's control characters", () => {
    const slack = webhookBody(
      summaryOf([result({ detail: "gateway said <html> & left" })]),
      "slack",
    );
    expect(slack).toContain("gateway said &lt;html&gt; &amp; left");
    expect(slack).not.toContain("<html>");
  });

  it.each(["teams", "slack", "json"] as const)(
    "%s: carries no registered secret, even one an upstream echoed",
    (format) => {
      const secret = `client-secret-${randomBytes(12).toString("hex")}`;
      const token = `eyJ${randomBytes(12).toString("hex")}.${randomBytes(12).toString("hex")}.sig`;
      registerSecret(secret);
      const body = webhookBody(
        summaryOf(
          [result({ detail: `refused: client_secret=${secret} Authorization: Bearer ${token}` })],
          {
            problems: [`ledger unavailable: ${secret}`],
          },
        ),
        format,
      );
      expect(body).not.toContain(secret);
      expect(body).not.toContain(token);
      expect(body).toContain("[REDACTED]");
      expect(() => JSON.parse(body)).not.toThrow();
    },
  );

  it("says dry run and succeeded when it went well", () => {
    const summary = summaryOf([], { dryRun: true });
    const json = JSON.parse(webhookBody(summary, "json")) as {
      title: string;
      status: string;
      text: string;
    };
    expect(json.title).toBe("certsched: renewal sweep succeeded (dry run)");
    expect(json.status).toBe("succeeded");
    expect(json.text).toContain("Would renew: 0");
  });
});
