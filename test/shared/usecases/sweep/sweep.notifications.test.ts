import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { type AccountPorts, createAccountPorts } from "../../../../shared/app/services.js";
import { type Ledger, memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { Logger } from "../../../../shared/lib/log.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import {
  SAMPLE_REFUSAL,
  type SeedCertificate,
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../../../sim/index.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

const NOW = new Date("2026-03-01T03:00:00Z");
const now = () => NOW;
const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY_MS);

/** Certificates whose renewals all go through. */
const HEALTHY: SeedCertificate[] = [
  { certificateName: "www-contoso-com", rootDomain: "contoso.com", expiryDate: inDays(5) },
  { certificateName: "shop-contoso-com", rootDomain: "contoso.com", expiryDate: inDays(12) },
];

interface Captured extends Logger {
  readonly lines: string[];
}

function capture(): Captured {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`INFO ${m}`),
    warn: (m) => lines.push(`WARN ${m}`),
    error: (m) => lines.push(`ERROR ${m}`),
  };
}

describe("sweep notifications to a webhook", () => {
  let receiver: Receiver;
  let sim: Simulator;
  let runtime: AccountPorts | undefined;
  /** The Teams-like signature: must reach the receiver and nothing else. */
  const sig = randomBytes(32).toString("base64url");

  beforeEach(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    await sim?.close();
    await receiver.close();
  });

  function webhookUrl(base = receiver.baseUrl): string {
    return `${base}/workflows/0f1e/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${sig}`;
  }

  async function start(
    certificates: SeedCertificate[],
    settings: Record<string, string>,
    ledger: Ledger = memoryLedger(),
  ): Promise<AccountPorts> {
    sim = await startSimulator({
      now,
      certificates,
      apiKey: `api-key-${randomBytes(12).toString("hex")}`,
      clientSecret: `client-secret-${randomBytes(12).toString("hex")}`,
    });
    runtime = createAccountPorts(
      loadSettings({ ...sandboxSettings(sim), CERTSCHED_WEBHOOK_URL: webhookUrl(), ...settings }),
      { now, ledger },
    );
    return runtime;
  }

  /** Every secret of the run: none may appear in a message or a log line. */
  function secrets(): string[] {
    return [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()];
  }

  function expectNoLeaks(log: Captured): void {
    const messages = receiver.received.map((r) => r.body).join("\n");
    const logs = log.lines.join("\n");
    for (const secret of secrets()) {
      expect(messages).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain(sig);
    // Slack's secret is the path itself: it is redacted too.
    expect(logs).not.toContain("/workflows/0f1e/triggers");
  }

  const refusalLine =
    /intranet-contoso-com \(Cloud Key Vault \+ DNS\): 8 days left, failed: .*Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns' \(HTTP 400\)/;

  it("posts a Teams workflow card naming the failed certificate, its days left and the cause", async () => {
    const log = capture();
    const summary = await sweep(
      await start(sampleCertificates(NOW), { CERTSCHED_WEBHOOK_FORMAT: "teams" }),
      log,
    );
    expect(summary.failed).toBe(true);
    expect(receiver.received).toHaveLength(1);
    const [post] = receiver.received;
    // The signature travels in the query: kept exactly as configured.
    expect(post?.url).toBe(new URL(webhookUrl()).pathname + new URL(webhookUrl()).search);
    expect(post?.method).toBe("POST");
    expect(post?.headers["content-type"]).toMatch(/^application\/json/);
    const message = post?.json as {
      type: string;
      attachments: Array<{
        contentType: string;
        content: {
          type: string;
          version: string;
          $schema: string;
          body: Array<{
            type: string;
            text?: string;
            facts?: Array<{ title: string; value: string }>;
          }>;
        };
      }>;
    };
    expect(message.type).toBe("message");
    expect(message.attachments).toHaveLength(1);
    const card = message.attachments[0];
    expect(card?.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card?.content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
    expect(card?.content.$schema).toContain("adaptive-card.json");
    const texts = card?.content.body.filter((b) => b.type === "TextBlock").map((b) => b.text) ?? [];
    expect(texts[0]).toBe("certsched: renewal sweep failed");
    expect(texts.filter((t) => refusalLine.test(t ?? ""))).toHaveLength(1);
    const facts = card?.content.body.find((b) => b.type === "FactSet")?.facts;
    expect(facts).toEqual(
      expect.arrayContaining([
        { title: "Due", value: "7" },
        { title: "Renewal scheduled", value: "6" },
        { title: "Failed", value: "1" },
      ]),
    );
    expect(log.lines).toContain("INFO certsched webhook notified (teams, 202)");
    expectNoLeaks(log);
  });

  it("posts a Slack message with a text fallback and blocks", async () => {
    const log = capture();
    receiver.answer({ status: 200, body: "ok" });
    await sweep(await start(sampleCertificates(NOW), { CERTSCHED_WEBHOOK_FORMAT: "slack" }), log);
    expect(receiver.received).toHaveLength(1);
    const message = receiver.received[0]?.json as {
      text: string;
      blocks: Array<{ type: string; text: { type: string; text: string } }>;
    };
    expect(message.text).toMatch(/^certsched: renewal sweep failed\n/);
    expect(message.text).toMatch(refusalLine);
    expect(message.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "certsched: renewal sweep failed" },
    });
    const attention = message.blocks.find((b) =>
      b.text.text.startsWith("*Certificates needing attention*"),
    );
    expect(attention?.text.type).toBe("mrkdwn");
    expect(attention?.text.text).toMatch(refusalLine);
    expectNoLeaks(log);
  });

  it("posts generic JSON with the counts, each failed or stuck certificate and the problems", async () => {
    const log = capture();
    // A certificate first asked for 30 h ago and still listed is stuck.
    const ledger = memoryLedger();
    const stuckExpiry = inDays(3);
    await ledger.write(
      {
        id: 501,
        certificateName: "stuck-fabrikam-com",
        expiryAtRequest: stuckExpiry,
        firstRequestedAt: new Date(NOW.getTime() - 30 * 3_600_000),
        lastRequestedAt: new Date(NOW.getTime() - 3 * 3_600_000),
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: undefined,
      },
      undefined,
    );
    const certificates = [
      ...sampleCertificates(NOW),
      {
        certificateName: "stuck-fabrikam-com",
        rootDomain: "fabrikam.com",
        expiryDate: stuckExpiry,
        id: 501,
      },
    ];
    const summary = await sweep(
      await start(certificates, { CERTSCHED_WEBHOOK_FORMAT: "json" }, ledger),
      log,
    );
    expect(summary.counts.stuck).toBe(1);
    const message = receiver.received[0]?.json as {
      source: string;
      status: string;
      counts: Record<string, number>;
      certificates: Array<Record<string, unknown>>;
      problems: string[];
    };
    expect(message.source).toBe("certsched");
    expect(message.status).toBe("failed");
    expect(message.counts).toEqual({
      due: 8,
      "renewal-scheduled": 6,
      "would-renew": 0,
      skipped: 0,
      failed: 1,
      stuck: 1,
      blocked: 0,
      "not-attempted": 0,
      deferred: 0,
      waiting: 0,
      disabled: 0,
    });
    // Most urgent first.
    expect(message.certificates).toEqual([
      expect.objectContaining({
        certificateName: "stuck-fabrikam-com",
        id: 501,
        daysLeft: 3,
        outcome: "stuck",
        detail: expect.stringContaining("still due 30.0 h after renewal was first requested"),
      }),
      expect.objectContaining({
        certificateName: "intranet-contoso-com",
        daysLeft: 8,
        outcome: "failed",
        detail: expect.stringContaining(SAMPLE_REFUSAL),
        status: 400,
      }),
    ]);
    expect(message.problems).toEqual([
      "1 renewal(s) failed: intranet-contoso-com",
      "1 certificate(s) stuck: stuck-fabrikam-com",
    ]);
    expectNoLeaks(log);
  });

  it("says nothing after a good sweep unless CERTSCHED_NOTIFY_SUCCESS is on", async () => {
    const log = capture();
    const summary = await sweep(await start(HEALTHY, { CERTSCHED_WEBHOOK_FORMAT: "json" }), log);
    expect(summary.failed).toBe(false);
    expect(summary.counts["renewal-scheduled"]).toBe(2);
    expect(receiver.received).toEqual([]);
    expect(log.lines.filter((l) => l.includes("webhook"))).toEqual([]);
  });

  it("reports every sweep with CERTSCHED_NOTIFY_SUCCESS=true, good ones included", async () => {
    const log = capture();
    const rt = await start(HEALTHY, {
      CERTSCHED_WEBHOOK_FORMAT: "json",
      CERTSCHED_NOTIFY_SUCCESS: "true",
    });
    await sweep(rt, log);
    await sweep(rt, log, { dryRun: true });
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received.map(
      (r) =>
        r.json as {
          status: string;
          title: string;
          counts: Record<string, number>;
          certificates: unknown[];
        },
    );
    expect(first).toMatchObject({
      status: "succeeded",
      title: "certsched: renewal sweep succeeded",
      certificates: [],
    });
    expect(first?.counts).toMatchObject({ due: 2, "renewal-scheduled": 2 });
    // Renewed at once by the simulator: the second sweep finds nothing due.
    expect(second).toMatchObject({
      status: "succeeded",
      title: "certsched: renewal sweep succeeded (dry run)",
    });
    expectNoLeaks(log);
  });

  it.each([
    { name: "answers 500", down: false, behaviour: { status: 500, body: "" } },
    { name: "echoes the URL in its error", down: false, behaviour: { status: 502, body: "" } },
    { name: "is down", down: true, behaviour: { status: 202 } },
  ])(
    "a webhook that $name is logged, and the sweep's result stands",
    async ({ down, behaviour, name }) => {
      const log = capture();
      const rt = await start(HEALTHY, {
        CERTSCHED_WEBHOOK_FORMAT: "json",
        CERTSCHED_NOTIFY_SUCCESS: "true",
      });
      const body = name.startsWith("echoes")
        ? `Bad gateway while calling ${webhookUrl()} (sig=${sig})`
        : behaviour.body;
      receiver.answer({ ...behaviour, ...(body !== undefined ? { body } : {}) });
      if (down) await receiver.close();
      const summary = await sweep(rt, log);
      expect(summary.failed).toBe(false);
      expect(summary.counts["renewal-scheduled"]).toBe(2);
      const warnings = log.lines.filter((l) => l.startsWith("WARN certsched webhook"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        down
          ? /^WARN certsched webhook notification failed \(json\), the sweep is unaffected: webhook: cannot reach the service \(ECONNREFUSED\)$/
          : new RegExp(
              `^WARN certsched webhook notification failed \\(json\\), the sweep is unaffected: the webhook answered ${behaviour.status}`,
            ),
      );
      expectNoLeaks(log);
    },
  );
});
