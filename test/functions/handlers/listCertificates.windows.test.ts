import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../functions/dashboard.js";
import { getCertificate } from "../../../functions/getCertificate.js";
import { listCertificates } from "../../../functions/listCertificates.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type AppHarness, startHarness } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

/*
 * The renewal calendar over HTTP, declared in the app's settings as an operator would:
 * GET /api/certificates (each item's `window` and `label`) and the dashboard's status cell,
 * with a freeze reason and a pattern as hostile as upstream text (escaped in HTML).
 */

let app: AppHarness;
let inventory: Inventory;
const HOSTILE = '<img src=x onerror="alert(1)">';
/** A window two days ahead (Berlin's weekday), one hour long: never open now. */
const weekday = (new Date().getUTCDay() + 2) % 7;

beforeAll(async () => {
  app = await startHarness({ certificates: [] });
  inventory = memoryInventory();
  await app.configure(
    {
      CERTSCHED_RENEWAL_WINDOWS: JSON.stringify([
        { start: `0 9 * * ${weekday}`, duration: "1h", timeZone: "Europe/Berlin" },
      ]),
      CERTSCHED_CERTIFICATE_POLICY: JSON.stringify([
        { certificates: ["legacy"], policy: "disabled" },
      ]),
      CERTSCHED_RENEWAL_FREEZES: JSON.stringify([
        { from: "2099-12-20", to: "2099-12-31", reason: HOSTILE },
      ]),
    },
    { inventory },
  );
  const seenAt = new Date();
  await inventory.upsert(
    ["waits", "legacy"].map((certificateName, i) => ({
      certificateName,
      id: 8001 + i,
      source: "due-list" as const,
      serviceExpiry: new Date(Date.now() + 15 * DAY_MS),
      seenAt,
    })),
  );
}, 60_000);
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(async () => {
  await app?.close();
});

interface Item {
  certificateName: string;
  label: string;
  window?: { state: string; opensAt?: string; policy?: string } | null;
}

describe("the renewal calendar in the API and on the dashboard", () => {
  it("GET /api/certificates: waiting for window (opens ...) and disabled", async () => {
    const reply = await app.call(
      listCertificates,
      httpRequest({ method: "GET", path: "certificates" }),
    );

    expect(reply.status, reply.text).toBe(200);
    const items = new Map(
      (reply.body as { items: Item[] }).items.map((i) => [i.certificateName, i]),
    );
    expect(items.get("waits")?.window).toMatchObject({
      state: "waiting",
      opensAt: expect.any(String),
    });
    expect(items.get("waits")?.label).toMatch(
      /^ok · waiting for window \(opens \d{4}-\d\d-\d\d 09:[0-3]\d Europe\/Berlin \(\d{4}-\d\d-\d\d 0[78]:[0-3]\d UTC\)\)$/,
    );
    expect(items.get("legacy")?.window).toMatchObject({ state: "disabled" });
    expect(items.get("legacy")?.label).toMatch(/· disabled \(policy CERTSCHED_CERTIFICATE_POLICY/);
  });

  it("GET /api/certificates/{name}: the certificate's own window, as the list says it", async () => {
    const one = async (name: string) => {
      const reply = await app.call(
        getCertificate,
        httpRequest({ method: "GET", path: `certificates/${name}`, params: { name } }),
      );
      expect(reply.status, reply.text).toBe(200);
      return (reply.body as { status: Item }).status;
    };
    expect((await one("waits")).window).toMatchObject({ state: "waiting" });
    expect((await one("waits")).label).toMatch(/· waiting for window \(opens /);
    expect((await one("legacy")).window).toMatchObject({ state: "disabled" });
  });

  it("the dashboard: the same words under the status", async () => {
    const reply = await app.call(dashboard, httpRequest({ method: "GET", path: "dashboard" }));

    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(/class="sub window window-waiting">waiting for window \(opens /);
    expect(reply.text).toContain('class="sub window window-disabled">disabled (policy ');
    expect(reply.text).not.toContain(HOSTILE);
  });
});
