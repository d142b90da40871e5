import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../functions/dashboard.js";
import { discoverEstate } from "../../../functions/discoverEstate.js";
import { SANDBOX_ESTATE_UNMANAGED } from "../../../sim/index.js";
import { configureApp, releaseApp } from "../../support/app.js";
import { type EstateWorld, startEstateWorld } from "../../support/estateWorld.js";
import { httpRequest, invocationContext, timer } from "../../support/invoke.js";
import { toReply } from "../../support/reply.js";

/**
 * The dashboard's Estate section over the simulator: empty until the estate timer keeps a
 * report, then the sandbox's unmanaged gateway certificate, red, without the page discovering.
 */

let world: EstateWorld;
beforeAll(async () => {
  world = await startEstateWorld();
  await configureApp(world.settings, await world.seams());
});
afterAll(async () => {
  await releaseApp();
  await world?.close();
});

async function page(): Promise<string> {
  const context = invocationContext("dashboard");
  const reply = toReply(
    await dashboard(httpRequest({ method: "GET", path: "/api/dashboard" }), context),
  );
  expect(reply.status).toBe(200);
  return String(reply.text);
}

const graphQueries = () =>
  world.arm.requests.filter((r) => r.path.toLowerCase().includes("resourcegraph")).length;

describe("the dashboard's Estate section", () => {
  it("before the estate timer ran: not discovered yet, and the page did not discover", async () => {
    const before = graphQueries();
    const html = await page();
    expect(html).toContain("Not discovered yet");
    expect(graphQueries()).toBe(before);
  });

  it("after it: the unmanaged gateway certificate expiring in 9 days, with where it is bound", async () => {
    await discoverEstate(timer(), invocationContext("discoverEstate")).catch(() => undefined);
    const before = graphQueries();
    // The timer asked Resource Graph (so the count below would see the page asking it too).
    expect(before).toBeGreaterThan(0);
    const html = await page();
    expect(graphQueries()).toBe(before);
    const section = html.slice(html.indexOf('<section id="estate"'));
    expect(section).toContain(
      `<span class="name estate-name">${SANDBOX_ESTATE_UNMANAGED.certificate}</span> <span class="badge">application-gateway</span>`,
    );
    expect(section).toContain(`(in ${SANDBOX_ESTATE_UNMANAGED.days} days)`);
    expect(section).toContain(SANDBOX_ESTATE_UNMANAGED.hostName);
    expect(section).toContain("certificate certsched does not keep expires within 30 days");
  });
});
