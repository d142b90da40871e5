import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNotifier } from "../../../../shared/adapters/notify/notifier.js";
import type { Notifier } from "../../../../shared/core/ports/notifier.js";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import type { Logger } from "../../../../shared/lib/log.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

const FAILED: SweepSummary = {
  dryRun: false,
  startedAt: "2026-03-01T03:00:00.000Z",
  durationMs: 12,
  ledger: "table",
  listError: "list certificates failed: no answer within the timeout (UND_ERR_HEADERS_TIMEOUT)",
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
  failed: true,
  problems: ["list certificates failed: no answer within the timeout (UND_ERR_HEADERS_TIMEOUT)"],
};
const GOOD: SweepSummary = { ...FAILED, failed: false, problems: [], listError: undefined };

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`INFO ${m}`),
    warn: (m) => lines.push(`WARN ${m}`),
    error: (m) => lines.push(`ERROR ${m}`),
  };
}

describe("createNotifier", () => {
  let receiver: Receiver;
  let notifier: Notifier | undefined;

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await notifier?.close();
    await receiver.close();
  });

  it("gives up on a webhook that never answers, and says so", async () => {
    receiver.answer("hang");
    notifier = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
      timeoutMs: 200,
    });
    const log = capture();
    expect(await notifier.notify(FAILED, log)).toBe("failed");
    expect(receiver.received).toHaveLength(1);
    expect(log.lines).toEqual([
      expect.stringMatching(
        /^WARN certsched webhook notification failed \(json\), the sweep is unaffected: webhook: no answer within the timeout/,
      ),
    ]);
  });

  it("tries once more after 429 (nothing was posted), never after 500", async () => {
    receiver.answer({ status: 429 }, { status: 202 });
    notifier = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    expect(await notifier.notify(FAILED, capture())).toBe("sent");
    expect(receiver.received).toHaveLength(2);

    receiver.answer({ status: 500 });
    expect(await notifier.notify(FAILED, capture())).toBe("failed");
    expect(receiver.received).toHaveLength(3);
  });

  it("does not follow a redirect: the message would go to another host", async () => {
    receiver.answer({ status: 302, body: "" });
    notifier = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    const log = capture();
    expect(await notifier.notify(FAILED, log)).toBe("failed");
    expect(log.lines[0]).toContain("the webhook answered 302");
  });

  it("posts nothing after a good sweep unless asked to", async () => {
    notifier = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    expect(await notifier.notify(GOOD, capture())).toBe("not-needed");
    expect(receiver.received).toEqual([]);

    const chatty = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: true,
    });
    expect(await chatty.notify(GOOD, capture())).toBe("sent");
    await chatty.close();
    expect(receiver.received).toHaveLength(1);
  });

  it("reports a failed list as a run-level problem", async () => {
    notifier = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
    });
    await notifier.notify(FAILED, capture());
    expect(receiver.received[0]?.json).toMatchObject({
      status: "failed",
      listError: FAILED.listError,
      certificates: [],
      problems: FAILED.problems,
    });
  });
});
