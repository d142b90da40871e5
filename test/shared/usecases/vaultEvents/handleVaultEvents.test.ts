import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudEvent } from "../../../support/vaultEvents.js";
import { type EventsWorld, LAG_MS, startEventsWorld, VAULT } from "./eventsWorld.js";

/**
 * Key Vault events end to end: Event Grid's delivery handed to the use case, the simulator's
 * vault confirming each version over HTTPS with the vault token, the consumers probed over TLS
 * within the delivery, rechecks through a recording queue.
 */

let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld();
}, 60_000);
afterAll(async () => {
  expect(w.app.leaks(w.receiver.received.map((r) => r.body))).toEqual([]);
  await w.close();
});

const versionReads = (version: string) =>
  w.hosting.vault.requests.filter((r) => r.authorized && r.path.endsWith(`/${version}`)).length;

describe("a new version of a vault certificate", () => {
  it("is confirmed by the vault and its consumer checked within the delivery: served, done, no recheck", async () => {
    const current = w.versions("kv-www").at(-1) as string;
    const { run, lines } = await w.deliver([
      w.event({ certificateName: "kv-www", version: current, id: "ev-www-1" }),
    ]);
    expect(run).toMatchObject({ received: 1, failed: [] });
    expect(run.outcomes).toEqual([expect.objectContaining({ id: "ev-www-1", outcome: "done" })]);
    expect(run.outcomes[0]?.line).toBe(
      `certsched vault event ev-www-1 (new-version ${VAULT}/kv-www version ${current}): done: consumers serve it: www.events.test`,
    );
    expect(lines.map((l) => l.message)).toContain(run.outcomes[0]?.line);
    // The vault was asked for the version the event names (never the payload's word).
    expect(versionReads(current)).toBeGreaterThan(0);
    expect(w.sent).toEqual([]);
    const history = await w.vaultHistory();
    expect(history).toEqual([
      expect.objectContaining({
        certificateName: "kv-www",
        event: "vault-event",
        trigger: "event",
        reason: "new-version",
        detail: "consumers serve it: www.events.test",
      }),
    ]);
  });

  it("delivered twice in one delivery, again later and in CloudEvents form, is done once", async () => {
    const current = w.versions("kv-www").at(-1) as string;
    const init = { certificateName: "kv-www", version: current, id: "ev-www-2" };
    const first = await w.deliver([w.event(init), w.event(init)]);
    expect(first.run.outcomes.map((o) => o.outcome)).toEqual(["duplicate", "duplicate"]);
    expect(first.run.outcomes[1]?.line).toContain(
      "the same event as ev-www-2 earlier in this delivery",
    );
    const again = await w.deliver(cloudEvent({ ...init, vaultName: VAULT, id: "ev-www-3" }));
    expect(again.run.outcomes).toEqual([expect.objectContaining({ outcome: "duplicate" })]);
    expect(again.run.failed).toEqual([]);
    expect(await w.vaultHistory()).toHaveLength(1);
    expect(w.sent).toEqual([]);
    expect(w.receiver.received).toEqual([]);
  });

  it("an older version delivered after the newer one is skipped as older: nothing done", async () => {
    const [older] = w.versions("kv-www");
    const { run, lines } = await w.deliver(
      w.event({ certificateName: "kv-www", version: older as string, id: "ev-old" }),
    );
    expect(run.outcomes).toEqual([
      expect.objectContaining({ id: "ev-old", outcome: "older-version" }),
    ]);
    expect(lines).toEqual([
      {
        level: "warn",
        message: expect.stringMatching(
          /^certsched vault event ev-old \(new-version kv-events\/kv-www version \w+\): skipped older-version: version \w+ is older than/,
        ),
      },
    ]);
    expect(await w.vaultHistory()).toHaveLength(1);
    expect(w.sent).toEqual([]);
  });
});

describe("a consumer behind the new version", () => {
  it("is rechecked through the queue, and the recheck finds it served once the consumer catches up", async () => {
    const current = w.versions("kv-lag").at(-1) as string;
    const { run } = await w.deliver(
      w.event({ certificateName: "kv-lag", version: current, id: "ev-lag" }),
    );
    expect(run.outcomes).toEqual([
      expect.objectContaining({ id: "ev-lag", outcome: "rechecking" }),
    ]);
    expect(run.outcomes[0]?.line).toMatch(
      /: rechecking: behind: lag\.events\.test; checking again at /,
    );
    expect(w.sent).toEqual([
      {
        message: expect.objectContaining({
          account: "default",
          vaultName: VAULT,
          certificateName: "kv-lag",
          version: current,
          names: ["kv-lag"],
          attempt: 1,
        }),
        // CERTSCHED_EVENT_RECHECK_FIRST
        delayMs: 30_000,
      },
    ]);
    const message = w.sent[0]?.message;
    if (!message) throw new Error("no recheck sent");

    // Too early: still behind, the next one is sent (twice as late).
    w.clock.advance(30_000);
    const early = await w.recheck(message);
    expect(early.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/attempt 1\): behind: lag\.events\.test; checking again at /),
    );
    expect(w.sent).toHaveLength(2);
    expect(w.sent[1]).toEqual({
      message: expect.objectContaining({ attempt: 2 }),
      delayMs: 60_000,
    });

    w.clock.advance(LAG_MS);
    const caught = await w.recheck(w.sent[1]?.message as typeof message);
    expect(caught.map((l) => l.message)).toContain(
      `certsched vault recheck ${VAULT}/kv-lag version ${current} (account "default", attempt 2): consumers serve it: lag.events.test`,
    );
    expect(w.sent).toHaveLength(2);
    const history = (await w.vaultHistory()).filter((e) => e.certificateName === "kv-lag");
    expect(history.map((e) => e.detail)).toEqual([
      expect.stringMatching(/^behind: lag\.events\.test; checking again at /),
      "consumers serve it: lag.events.test",
    ]);
  });

  it("a recheck of a version no longer current ends the rechecks: its own event checks the new one", async () => {
    const [older] = w.versions("kv-lag");
    const lines = await w.recheck({
      account: "default",
      vaultName: VAULT,
      certificateName: "kv-lag",
      version: older as string,
      names: ["kv-lag"],
      until: new Date(w.clock.now().getTime() + LAG_MS).toISOString(),
      attempt: 3,
    });
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/ is current now; its own event checks it$/),
    );
    expect(w.sent).toHaveLength(2);
  });

  it("at the end of the sync window nothing more is sent", async () => {
    const current = w.versions("kv-lag").at(-1) as string;
    w.hosting.setVaultLag("kv-lag", 400 * 24 * LAG_MS);
    const lines = await w.recheck({
      account: "default",
      vaultName: VAULT,
      certificateName: "kv-lag",
      version: current,
      names: ["kv-lag"],
      until: w.clock.now().toISOString(),
      attempt: 5,
    });
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /attempt 5\): behind: lag\.events\.test; the sync window ended at .*: no more rechecks$/,
      ),
    );
    expect(w.sent).toHaveLength(2);
    w.hosting.setVaultLag("kv-lag", LAG_MS);
  });
});
