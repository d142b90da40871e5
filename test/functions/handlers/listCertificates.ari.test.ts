import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../functions/dashboard.js";
import { getCertificate } from "../../../functions/getCertificate.js";
import { listCertificates } from "../../../functions/listCertificates.js";
import type { AriRecord } from "../../../shared/core/ari/ariRecord.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type AppHarness, startHarness } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

/*
 * The CA's renewal window (ARI) over HTTP: GET /api/certificates (each item's `ari`),
 * GET /api/certificates/{name} and the dashboard's expiry cell, with rows whose `ari` a
 * verification run would have stored (the asking itself is askAri's suites').
 */

let app: AppHarness;
let inventory: Inventory;
const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);
// Valid http(s), as the CA's answer is checked to be; still upstream text, escaped in HTML.
const HOSTILE_URL = 'https://ca.example/why?"><script>alert(1)</script>';

const ari = (start: Date, end: Date, more: Partial<AriRecord> = {}): AriRecord => ({
  certId: "aaa.bbb",
  directoryUrl: "https://127.0.0.1:1/directory",
  start,
  end,
  askedAt: new Date(),
  nextAskAt: new Date(Date.now() + HOUR_MS),
  ...more,
});

beforeAll(async () => {
  app = await startHarness({ certificates: [] });
  inventory = memoryInventory();
  await app.configure({}, { inventory });
  const seenAt = new Date();
  await inventory.upsert(
    ["a-now", "b-later", "c-none"].map((certificateName, i) => ({
      certificateName,
      id: 7001 + i,
      source: "due-list" as const,
      serviceExpiry: new Date(Date.now() + 60 * DAY_MS),
      seenAt,
    })),
  );
  await inventory.recordAri?.(
    "a-now",
    ari(new Date(Date.now() - DAY_MS), new Date(Date.now() + DAY_MS), {
      explanationUrl: HOSTILE_URL,
    }),
  );
  await inventory.recordAri?.("b-later", ari(day("2099-12-01"), day("2099-12-03")));
}, 60_000);
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(async () => {
  await app?.close();
});

interface Item {
  certificateName: string;
  ari: {
    start: string;
    end: string;
    explanationUrl: string | null;
    renewNow: boolean;
    text: string;
  } | null;
}

describe("the ARI window in the API and on the dashboard", () => {
  it("GET /api/certificates: each item's ari, null without one", async () => {
    const reply = await app.call(
      listCertificates,
      httpRequest({ method: "GET", path: "certificates" }),
    );
    expect(reply.status, reply.text).toBe(200);
    const byName = new Map(
      (reply.body as { items: Item[] }).items.map((i) => [i.certificateName, i.ari]),
    );
    expect(byName.get("a-now")).toMatchObject({
      renewNow: true,
      explanationUrl: expect.any(String),
    });
    expect(byName.get("a-now")?.text).toMatch(
      /^ARI window \d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2} \(renew now\)$/,
    );
    expect(byName.get("b-later")).toEqual({
      start: "2099-12-01T00:00:00.000Z",
      end: "2099-12-03T00:00:00.000Z",
      explanationUrl: null,
      renewNow: false,
      text: "ARI window 2099-12-01..2099-12-03",
      problem: null,
    });
    expect(byName.get("c-none")).toBeNull();
  });

  it("GET /api/certificates/{name}: the status carries the window", async () => {
    const reply = await app.call(
      getCertificate,
      httpRequest({ method: "GET", path: "certificates/b-later", params: { name: "b-later" } }),
    );
    expect(reply.status, reply.text).toBe(200);
    expect((reply.body as { status: Item }).status.ari?.text).toBe(
      "ARI window 2099-12-01..2099-12-03",
    );
  });

  it("the dashboard shows the window under the expiry, the explanation as an escaped link", async () => {
    const reply = await app.call(dashboard, httpRequest({ method: "GET", path: "dashboard" }));
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('<span class="sub ari">ARI window 2099-12-01..2099-12-03</span>');
    expect(reply.text).toMatch(
      /<span class="sub ari">ARI window [\d-]+\.\.[\d-]+ \(renew now\) <a href="https:\/\/ca\.example\/why\?%22%3E%3Cscript%3Ealert\(1\)%3C\/script%3E" rel="noopener noreferrer nofollow" target="_blank">why<\/a><\/span>/,
    );
    expect(reply.text).not.toContain("<script>alert(1)");
  });
});
