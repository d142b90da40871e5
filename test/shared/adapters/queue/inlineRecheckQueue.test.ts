import { describe, expect, it } from "vitest";
import { inlineRecheckQueue } from "../../../../shared/adapters/queue/inlineRecheckQueue.js";
import type { RecheckMessage } from "../../../../shared/core/ports/vaultEvents.js";
import { collectingLogger } from "../../../support/app.js";

/** The recheck queue in process: a timer per message, delivering to a callback. */

const message = (attempt: number): RecheckMessage => ({
  account: "default",
  vaultName: "contoso-kv",
  certificateName: "www\u001b[2J",
  version: "v1",
  names: ["www.contoso.com"],
  until: "2026-12-03T10:00:00.000Z",
  attempt,
});

describe("the inline recheck queue", () => {
  it("delivers each message after its delay, the shortest first, with the sender's log", async () => {
    const delivered: number[] = [];
    const queue = inlineRecheckQueue(async (m) => {
      delivered.push(m.attempt);
    });
    expect(queue.kind).toBe("inline");
    const { log: logger } = collectingLogger();
    await queue.send(message(2), 40, logger);
    await queue.send(message(1), 0, logger);
    expect(delivered).toEqual([]);
    expect(queue.pending).toBe(2);
    await queue.settled();
    expect(delivered).toEqual([1, 2]);
    expect(queue.pending).toBe(0);
  });

  it("a delivery that throws is logged, escaped, and delivered no more; the others still are", async () => {
    const delivered: number[] = [];
    const queue = inlineRecheckQueue(async (m) => {
      if (m.attempt === 1) throw new Error("the vault said no");
      delivered.push(m.attempt);
    });
    const { log: logger, lines } = collectingLogger();
    await queue.send(message(1), 0, logger);
    await queue.send(message(2), 0, logger);
    await queue.settled();
    expect(delivered).toEqual([2]);
    expect(lines.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      "certsched vault recheck contoso-kv/www\\u{1b}[2J attempt 1: the vault said no",
    ]);
  });

  it("closed: the messages still waiting are never delivered", async () => {
    const delivered: number[] = [];
    const queue = inlineRecheckQueue(async (m) => {
      delivered.push(m.attempt);
    });
    const { log: logger } = collectingLogger();
    await queue.send(message(1), 3_600_000, logger);
    queue.close();
    await queue.settled();
    expect(delivered).toEqual([]);
    expect(queue.pending).toBe(0);
  });
});
