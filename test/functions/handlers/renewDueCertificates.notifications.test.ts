import { randomBytes, randomUUID } from "node:crypto";
import { InvocationContext, type Timer } from "@azure/functions";
import { afterEach, describe, expect, it } from "vitest";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { resetServices } from "../../../shared/app/services.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { SweepFailedError } from "../../../shared/lib/errors.js";
import {
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../../sim/index.js";
import { type Behaviour, type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/** The daily timer, as the host runs it, with a webhook configured in the app settings. */

const NOW = new Date("2026-03-01T03:00:00Z");
const now = () => NOW;
const TIMER = {
  isPastDue: false,
  scheduleStatus: { last: "", next: "", lastUpdated: "" },
} as unknown as Timer;

const saved = new Map<string, string | undefined>();
function setEnv(values: Record<string, string>): void {
  for (const [key, value] of Object.entries(values)) {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    process.env[key] = value;
  }
}

describe("renewDueCertificates with a webhook", () => {
  let sim: Simulator | undefined;
  let receiver: Receiver | undefined;

  afterEach(async () => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    saved.clear();
    await resetServices();
    await sim?.close();
    await receiver?.close();
  });

  async function run(healthy: boolean, answer: Behaviour = { status: 202 }) {
    receiver = await startReceiver();
    receiver.answer(answer);
    sim = await startSimulator({
      now,
      apiKey: `api-key-${randomBytes(12).toString("hex")}`,
      clientSecret: `client-secret-${randomBytes(12).toString("hex")}`,
      certificates: sampleCertificates(NOW).filter((c) => !healthy || !c.refuseRenewal),
    });
    const sig = randomBytes(32).toString("base64url");
    setEnv({
      ...sandboxSettings(sim),
      CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook?sig=${sig}`,
      CERTSCHED_WEBHOOK_FORMAT: "teams",
      CERTSCHED_NOTIFY_SUCCESS: "true",
    });
    await resetServices({ now, ledger: memoryLedger() });
    const logs: string[] = [];
    const context = new InvocationContext({
      invocationId: randomUUID(),
      functionName: "renewDueCertificates",
      logHandler: (level, ...args) => logs.push(`${level} ${args.map(String).join(" ")}`),
    });
    const outcome = await renewDueCertificates(TIMER, context).then(
      () => "completed",
      (error: unknown) => error,
    );
    const secrets = [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens(), sig];
    const leaks = secrets.filter((s) => logs.some((l) => l.includes(s)));
    return { outcome, logs, leaks, receiver };
  }

  it("a webhook that fails never fails a good run", async () => {
    const {
      outcome,
      logs,
      leaks,
      receiver: r,
    } = await run(true, {
      status: 500,
      body: "workflow disabled",
    });
    expect(outcome).toBe("completed");
    expect(r.received).toHaveLength(1);
    expect(logs.filter((l) => l.includes("webhook notification failed"))).toHaveLength(1);
    expect(leaks).toEqual([]);
  });

  it("a failed run posts its card and still fails, so the platform's alert fires too", async () => {
    const { outcome, logs, leaks, receiver: r } = await run(false);
    expect(outcome).toBeInstanceOf(SweepFailedError);
    expect(r.received).toHaveLength(1);
    expect(r.received[0]?.body).toContain("intranet-contoso-com");
    expect(logs.some((l) => l.includes("certsched webhook notified (teams, 202)"))).toBe(true);
    expect(leaks).toEqual([]);
  });
});
