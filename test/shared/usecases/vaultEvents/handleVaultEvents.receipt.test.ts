import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getServices } from "../../../../shared/app/services.js";
import { MINUTE_MS } from "../../../../shared/lib/time.js";
import { renewByName } from "../../../../shared/usecases/renewByName.js";
import { withVaultSeam } from "../../../../shared/usecases/vaultEvents/confirmWithVault.js";
import { verifyWith } from "../../../../shared/usecases/verify.js";
import { collectingLogger } from "../../../support/app.js";
import { type EventsWorld, startEventsWorld } from "./eventsWorld.js";

/*
 * The new version an event announces is the renewal certsched asked for: the event's check
 * closes that renewal's receipt. The vault is read by the timer's verification first (what it
 * held before), the renewal asked by name and accepted, the service completes it and installs a
 * new version in the vault; then Key Vault's event for that version arrives.
 */

let world: EventsWorld;
beforeAll(async () => {
  world = await startEventsWorld();
}, 60_000);
afterAll(() => world?.close());

describe("a new version that is the renewal certsched asked for", () => {
  it("closes the renewal's receipt: history `landed`, trigger event, what the vault held before and after", async () => {
    const { log } = collectingLogger();
    const ports = getServices().forAccount();
    const read = { ...ports, probes: withVaultSeam(ports.probes, world.options.keyVault) };
    const before = world.versions("kv-www").at(-1);
    await verifyWith(read, log, {
      trigger: "timer",
      names: ["kv-www"],
      renewForAri: false,
      ...(world.options.ca ? { ca: world.options.ca } : {}),
    });
    const renewed = await renewByName(ports, "kv-www", { trigger: "http", by: "test" }, log);
    expect(renewed.status).toBe("scheduled");

    // The service completes the renewal (the harness's 30 min), and the vault gets its version.
    world.clock.advance(31 * MINUTE_MS);
    world.app.sim.certificates();
    const after = world.versions("kv-www").at(-1);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    const { run } = await world.deliver([
      world.event({ certificateName: "kv-www", version: after }),
    ]);

    expect(run.failed).toEqual([]);
    expect(run.outcomes.map((o) => o.outcome)).toEqual(["done"]);
    const { items } = await world.history.events({ since: new Date(0), limit: 1000 });
    const landed = items.filter((e) => e.event === "landed" && e.certificateName === "kv-www");
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ trigger: "event", reason: expect.any(String) });
    expect(landed[0]?.before?.thumbprint).toBeDefined();
    expect(landed[0]?.after?.thumbprint).toBeDefined();
    expect(landed[0]?.after?.thumbprint).not.toBe(landed[0]?.before?.thumbprint);
    expect(landed[0]?.detail).toMatch(/the vault's current version/);

    // The same event again: a duplicate, and the receipt is not closed twice.
    const again = await world.deliver([world.event({ certificateName: "kv-www", version: after })]);
    expect(again.run.outcomes.map((o) => o.outcome)).toEqual(["duplicate"]);
    const later = await world.history.events({ since: new Date(0), limit: 1000 });
    expect(later.items.filter((e) => e.event === "landed")).toHaveLength(1);
  });
});
