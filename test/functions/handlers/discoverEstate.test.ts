import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discoverEstate } from "../../../functions/discoverEstate.js";
import { ESTATE_ALERT_LINE, ESTATE_SUMMARY_LINE } from "../../../shared/core/estate/lines.js";
import { EstateAlertError } from "../../../shared/lib/errors.js";
import { SANDBOX_ESTATE_UNMANAGED } from "../../../sim/index.js";
import { configureApp, leaksIn, releaseApp } from "../../support/app.js";
import { type EstateWorld, startEstateWorld } from "../../support/estateWorld.js";
import { invocationContext, timer } from "../../support/invoke.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/** The estate timer over the simulator: fails once, naming what entered the set; then quiet. */

let world: EstateWorld;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  world = await startEstateWorld({
    CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
    CERTSCHED_WEBHOOK_FORMAT: "json",
  });
});
afterAll(async () => {
  await releaseApp();
  await world?.close();
  await receiver?.close();
});

async function run(extra: Record<string, string> = {}) {
  await configureApp({ ...world.settings, ...extra }, await world.seams());
  const lines: { level: string; message: string }[] = [];
  const context = invocationContext("discoverEstate", (level, message) =>
    lines.push({ level, message }),
  );
  const error = await discoverEstate(timer(), context).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, lines };
}

describe("the estate timer", () => {
  it("CERTSCHED_ESTATE=false: nothing is discovered, nothing kept", async () => {
    const { error, lines } = await run({ CERTSCHED_ESTATE: "false" });
    expect(error).toBeUndefined();
    expect(lines.map((l) => l.message)).toContain(
      "certsched estate: CERTSCHED_ESTATE is false; nothing was discovered",
    );
    expect(await world.store.last("default")).toBeUndefined();
  });

  it("fails the first run naming the certificate that entered the set, with one alert line and one message; the next run is quiet", async () => {
    const first = await run();
    expect(first.error).toBeInstanceOf(EstateAlertError);
    expect((first.error as Error).message).toContain(
      `unmanaged certificate ${SANDBOX_ESTATE_UNMANAGED.certificate} entered the set`,
    );
    const alerts = first.lines.filter((l) => l.message.startsWith(ESTATE_ALERT_LINE));
    expect(alerts).toHaveLength(1);
    expect(first.lines.some((l) => l.message.startsWith(ESTATE_SUMMARY_LINE))).toBe(true);
    expect(receiver.received).toHaveLength(1);
    const second = await run();
    expect(second.error).toBeUndefined();
    expect(second.lines.filter((l) => l.message.startsWith(ESTATE_ALERT_LINE))).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    const texts = [...first.lines, ...second.lines].map((l) => l.message);
    expect(
      leaksIn(world.sim, [...texts, String(first.error), receiver.received[0]?.body ?? ""]),
    ).toEqual([]);
  });
});
