import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { SAMPLE_SUBSCRIPTION } from "../../../support/vaultEvents.js";
import { type EventsWorld, startEventsWorld, VAULT } from "./eventsWorld.js";

/**
 * Near-expiry and expired events, confirmed by the simulator's vault, weighed against what
 * certsched knows: in hand (no alert), at risk (its renewal failed), unmanaged (a certificate in a
 * watched vault that certsched does not renew): each alert one error line, one webhook message,
 * one history alert; a webhook that fails never fails the event.
 */

let w: EventsWorld;
beforeAll(async () => {
  w = await startEventsWorld();
}, 60_000);
afterAll(async () => {
  expect(w.app.leaks(w.receiver.received.map((r) => r.body))).toEqual([]);
  await w.close();
});

const current = (name: string) => w.versions(name).at(-1) as string;
const alerts = (lines: readonly { level: string; message: string }[]) =>
  lines.filter((l) => l.message.startsWith("certsched vault alert:"));

describe("an expiry event of a certificate certsched renews", () => {
  it("nothing failed: in hand, recorded, no alert and no message", async () => {
    const { run, lines } = await w.deliver(
      w.event({
        kind: "near-expiry",
        certificateName: "kv-www",
        version: current("kv-www"),
        id: "near-www",
      }),
    );
    expect(run.outcomes).toEqual([expect.objectContaining({ id: "near-www", outcome: "in-hand" })]);
    expect(alerts(lines)).toEqual([]);
    expect(w.receiver.received).toEqual([]);
    expect(await w.vaultHistory()).toEqual([
      expect.objectContaining({
        certificateName: "kv-www",
        event: "vault-event",
        reason: "near-expiry",
      }),
    ]);
  });

  it("its last renewal failed: at risk, one alert line, one webhook message, one history alert", async () => {
    const t = w.clock.now().getTime();
    await w.inventory.upsert([
      {
        certificateName: "kv-lag",
        id: 77,
        rootDomain: "lag.events.test",
        target: KEY_VAULT,
        keyVaultName: VAULT,
        cloudSubscriptionId: SAMPLE_SUBSCRIPTION,
        source: "created",
        seenAt: w.clock.now(),
      },
    ]);
    await w.ledger.write(
      {
        id: 77,
        certificateName: "kv-lag",
        // The episode of the current version's expiry (the vault's version expires in 89 days).
        expiryAtRequest: new Date(t + 89 * DAY_MS),
        firstRequestedAt: new Date(t - 3 * HOUR_MS),
        lastRequestedAt: new Date(t - 3 * HOUR_MS),
        outcome: "failed",
        attempts: 1,
        detail: "the service refused the renewal",
      },
      undefined,
    );
    const version = current("kv-lag");
    const { run, lines } = await w.deliver(
      w.event({ kind: "near-expiry", certificateName: "kv-lag", version, id: "near-lag" }),
    );
    expect(run.outcomes).toEqual([expect.objectContaining({ id: "near-lag", outcome: "at-risk" })]);
    expect(alerts(lines)).toEqual([
      {
        level: "error",
        message: expect.stringMatching(
          new RegExp(
            `^certsched vault alert: near-expiry ${VAULT}/kv-lag version ${version} of account "default": its last renewal request failed at `,
          ),
        ),
      },
    ]);
    expect(w.receiver.received).toHaveLength(1);
    expect(w.receiver.received[0]?.body).toContain("kv-lag");
    const history = (await w.vaultHistory()).filter((e) => e.certificateName === "kv-lag");
    expect(history.map((e) => [e.event, e.reason, e.id])).toEqual([
      ["vault-event", "near-expiry", 77],
      ["vault-expiry-alert", "near-expiry", 77],
    ]);
  });
});

describe("an expiry event of a certificate certsched does not know, in a vault it watches", () => {
  it("alerts as an unmanaged certificate expiring, with where it lives", async () => {
    w.receiver.received.length = 0;
    const version = current("kv-stray");
    const { run, lines } = await w.deliver(
      w.event({ kind: "expired", certificateName: "kv-stray", version, id: "stray" }),
    );
    expect(run.outcomes).toEqual([expect.objectContaining({ id: "stray", outcome: "unmanaged" })]);
    expect(alerts(lines)).toHaveLength(1);
    expect(alerts(lines)[0]?.message).toContain("unmanaged certificate expiring");
    expect(w.receiver.received).toHaveLength(1);
    const history = (await w.vaultHistory()).filter(
      (e) => e.certificateName === `vault:${VAULT}/kv-stray`,
    );
    expect(history.map((e) => e.event)).toEqual(["vault-event", "vault-expiry-alert"]);
  });

  it("a webhook that fails is a warning: the event is done, and not done twice", async () => {
    w.receiver.answer({ status: 500 });
    const version = current("kv-stray");
    const event = w.event({
      kind: "near-expiry",
      certificateName: "kv-stray",
      version,
      id: "stray-2",
    });
    const { run, lines } = await w.deliver(event);
    w.receiver.answer({ status: 202 });
    expect(run.failed).toEqual([]);
    expect(run.outcomes).toEqual([expect.objectContaining({ outcome: "unmanaged" })]);
    expect(alerts(lines)).toHaveLength(1);
    const again = await w.deliver(event);
    expect(again.run.outcomes).toEqual([expect.objectContaining({ outcome: "duplicate" })]);
    const named = (await w.vaultHistory()).filter(
      (e) => e.certificateName === `vault:${VAULT}/kv-stray`,
    );
    expect(named).toHaveLength(4);
  });
});
