import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../functions/dashboard.js";
import { getCertificate } from "../../../functions/getCertificate.js";
import { listCertificates } from "../../../functions/listCertificates.js";
import { getAccountPorts } from "../../../shared/app/services.js";
import type { PreflightRecord } from "../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type AppHarness, type Reply, startHarness } from "../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { httpRequest } from "../../support/invoke.js";

/*
 * The last preflight over HTTP: GET /api/certificates (each item's `preflight` and
 * `label`, `?preflight=`), GET /api/certificates/{name} (the checks with their advice) and the
 * dashboard's Preflight column and filter, over an Azurite of this file's own with the inventory
 * rows seeded with stored preflights (the checks themselves are other suites').
 */

let azurite: AzuriteHandle;
let app: AppHarness;
const at = (ms: number) => new Date(Date.now() + ms);
const HOSTILE = `<script>alert("x")</script>\u001b[2J\nsecond line`;

const preflights: Record<string, PreflightRecord> = {
  "a-failing": {
    at: at(-HOUR_MS),
    status: "will-fail",
    rootDomain: "a.contoso.test",
    checks: [
      { check: "caa", status: "pass", detail: "no CAA record up to contoso.test" },
      { check: "app-binding", status: "fail", reason: "hostname-not-bound", detail: HOSTILE },
    ],
  },
  // Will fail, but a day and a bit ago: shown, no longer holding the renewal.
  "b-stale": {
    at: at(-DAY_MS - HOUR_MS),
    status: "will-fail",
    rootDomain: "b.contoso.test",
    checks: [{ check: "dns-zone", status: "fail", reason: "dns-zone-missing", detail: "404" }],
  },
  "c-ready": {
    at: at(-HOUR_MS),
    status: "ready",
    rootDomain: "c.contoso.test",
    checks: [{ check: "caa", status: "pass", detail: "no CAA record" }],
  },
  "d-unknown": {
    at: at(-HOUR_MS),
    status: "unknown",
    rootDomain: "d.contoso.test",
    checks: [{ check: "caa", status: "unknown", detail: "DNS timed out after 5 s" }],
  },
};
const NAMES = ["a-failing", "b-stale", "c-ready", "d-unknown", "e-never"];

beforeAll(async () => {
  azurite = await startAzurite();
  app = await startHarness({ certificates: [] });
  await app.configure({ AzureWebJobsStorage: azurite.connectionString });
  const runtime = getAccountPorts();
  const seenAt = new Date();
  await runtime.inventory.upsert(
    NAMES.map((certificateName, i) => ({
      certificateName,
      id: 6001 + i,
      source: "due-list" as const,
      serviceExpiry: at((40 + i) * DAY_MS + HOUR_MS),
      seenAt,
    })),
  );
  for (const [name, record] of Object.entries(preflights)) {
    await runtime.inventory.recordPreflight(name, record);
  }
}, 60_000);
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(async () => {
  await app?.close();
  await azurite?.stop();
});

interface Item {
  certificateName: string;
  status: string;
  label: string;
  preflight: {
    status: string;
    reasons: string[];
    blocks: string | null;
    checks: {
      check: string;
      status: string;
      reason: string | null;
      detail: string;
      advice: string | null;
    }[];
  } | null;
}

function list(query = ""): Promise<Reply> {
  return app.call(listCertificates, httpRequest({ method: "GET", path: `certificates${query}` }));
}
async function items(query = ""): Promise<Item[]> {
  const reply = await list(query);
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as { items: Item[] }).items;
}

describe("GET /api/certificates with the last preflight", () => {
  it("each item has its preflight and a label; the word stays", async () => {
    const byName = new Map((await items()).map((i) => [i.certificateName, i]));

    expect([...byName.keys()]).toEqual(NAMES);
    expect(byName.get("a-failing")).toMatchObject({
      status: "ok",
      label: "ok · will fail (hostname-not-bound)",
      preflight: {
        status: "will-fail",
        reasons: ["hostname-not-bound"],
        blocks: "hostname-not-bound",
        checks: [
          { check: "caa", status: "pass", reason: null, advice: null },
          {
            check: "app-binding",
            status: "fail",
            reason: "hostname-not-bound",
            detail: '<script>alert("x")</script>\\u{1b}[2J\\u{0a}second line',
            advice: PREFLIGHT_ADVICE["hostname-not-bound"],
          },
        ],
      },
    });
    expect(byName.get("b-stale")).toMatchObject({
      label: "ok · will fail (dns-zone-missing)",
      preflight: { status: "will-fail", blocks: null },
    });
    for (const name of ["c-ready", "d-unknown", "e-never"]) {
      expect(byName.get(name)?.label).toBe("ok");
    }
    expect(byName.get("e-never")?.preflight).toBeNull();
  });

  it("?preflight= keeps the certificates whose last preflight is one of the words", async () => {
    const names = async (query: string) => (await items(query)).map((i) => i.certificateName);

    expect(await names("?preflight=will-fail")).toEqual(["a-failing", "b-stale"]);
    expect(await names("?preflight=ready,unknown")).toEqual(["c-ready", "d-unknown"]);
    expect(await names("?preflight=none")).toEqual(["e-never"]);
    expect(await names("?preflight=will-fail&status=ok&top=1")).toEqual(["a-failing"]);
    expect(await names("?preflight=will-fail&status=failed")).toEqual([]);
  });

  it("refuses an unknown preflight word with 400 naming preflight", async () => {
    const reply = await list("?preflight=blocked");

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [
        {
          name: "preflight",
          message: "must be one or more of ready, will-fail, unknown, none, separated by commas",
        },
      ],
    });
  });
});

describe("GET /api/certificates/{name} with the last preflight", () => {
  it("the detail's status has every check with its status, reason, detail and advice", async () => {
    const reply = await app.call(
      getCertificate,
      httpRequest({ method: "GET", path: "certificates/a-failing", params: { name: "a-failing" } }),
    );

    expect(reply.status, reply.text).toBe(200);
    const body = reply.body as { status: Item };
    expect(body.status.label).toBe("ok · will fail (hostname-not-bound)");
    expect(body.status.preflight?.checks.map((c) => [c.check, c.status, c.reason])).toEqual([
      ["caa", "pass", null],
      ["app-binding", "fail", "hostname-not-bound"],
    ]);
    expect(body.status.preflight?.checks[1]?.advice).toBe(PREFLIGHT_ADVICE["hostname-not-bound"]);
  });
});

describe("the dashboard's Preflight column and filter", () => {
  const page = (query: Record<string, string> = {}) =>
    app.call(dashboard, httpRequest({ method: "GET", path: "dashboard", query }));
  const shown = (html: string) =>
    [...html.matchAll(/<span class="name">([^<]*)</g)].map((m) => m[1]);

  it("a Preflight column: the status and reasons, what to do, escaped", async () => {
    const reply = await page();

    expect(reply.status).toBe(200);
    expect(reply.text).toContain("<th>Preflight</th>");
    expect(reply.text).toContain(">will-fail (hostname-not-bound)</span>");
    expect(reply.text).toContain(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\\u{1b}[2J\\u{0a}second line",
    );
    expect(reply.text).not.toContain("<script>alert");
    expect(reply.text).toContain(
      "renewal held: the sweep sends no request while hostname-not-bound stands",
    );
    expect(reply.text).toContain('<span class="sub">— not checked</span>');
  });

  it("?preflight= shows only the matching rows, without script; a bad word is a 400", async () => {
    const failing = await page({ preflight: "will-fail" });
    expect(failing.status).toBe(200);
    expect(shown(failing.text).sort()).toEqual(["a-failing", "b-stale"]);
    expect(failing.text).toContain("Showing 2 certificates with preflight will-fail of 5.");
    expect(failing.text).toContain('href="?preflight=unknown"');

    expect(shown((await page({ preflight: "none" })).text)).toEqual(["e-never"]);

    const bad = await page({ preflight: "blocked" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ name: "preflight" }] });
  });
});
