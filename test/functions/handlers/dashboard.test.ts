import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dashboard } from "../../../functions/dashboard.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { startLocalServer } from "../../../shared/edge/localServer.js";
import { escapeHtml } from "../../../shared/lib/text/escapeHtml.js";
import {
  type AppHarness,
  closedPort,
  type Reply,
  type Settings,
  STACK_FRAME,
  startHarness,
} from "../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import {
  EXPECTED,
  HOSTILE_DOMAIN,
  HOSTILE_NAME,
  HOSTILE_SCRIPT_NAME,
  NOW,
  type Planted,
  seedDashboard,
} from "../../support/dashboard.js";
import { propertyRuns } from "../../support/fastCheck.js";
import { httpRequest } from "../../support/invoke.js";
import { principalHeader } from "../../support/principals.js";

let azurite: AzuriteHandle;
let app: AppHarness;
let planted: Planted;
let storage: Settings;

beforeAll(async () => {
  // A private Azurite: the app reads the default table names, which no other test may share.
  azurite = await startAzurite();
  app = await startHarness();
  planted = {
    apiKey: app.sim.options.apiKey,
    clientSecret: app.sim.options.clientSecret,
    webhookSignature: `sig${randomBytes(16).toString("hex")}`,
  };
  app.addSecrets(planted.webhookSignature);
  storage = {
    AzureWebJobsStorage: azurite.connectionString,
    CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *",
    CERTSCHED_WEBHOOK_URL: `https://hooks.example.com/workflows/run?sig=${planted.webhookSignature}`,
  };
  await seedDashboard(azurite.connectionString, planted);
}, 60_000);
afterEach(() => {
  delete process.env.WEBSITE_AUTH_ENABLED;
  expect(app.leaks()).toEqual([]);
});
afterAll(async () => {
  await app?.close();
  await azurite?.stop();
});

async function page(query: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return app.call(dashboard, httpRequest({ method: "GET", path: "dashboard", query, headers }));
}

async function seeded(extra: Settings = {}): Promise<void> {
  // WEBSITE_TIME_ZONE is the platform's, not a CERTSCHED_ setting: cleared here by name.
  await app.configure({ ...storage, WEBSITE_TIME_ZONE: undefined, ...extra }, { now: () => NOW });
}

/** The table's rows as the page lists them: status and days left, in order. */
function rows(reply: Reply): Array<{ status: string; days: string; name: string }> {
  return [
    ...reply.text.matchAll(
      /<tr data-status="([^"]*)" data-days="([^"]*)"><td data-label="Certificate"><div><span class="name">(.*?)<\/span>/g,
    ),
  ].map(([, status = "", days = "", name = ""]) => ({ status, days, name }));
}

const hash = (text: string) =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

describe("GET /api/dashboard", () => {
  it("is one HTML page locked down by its headers", async () => {
    await seeded();
    const reply = await page();

    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect(reply.headers["cache-control"]).toBe("no-store");
    expect(reply.headers["referrer-policy"]).toBe("no-referrer");
    const csp = (reply.headers["content-security-policy"] ?? "").split("; ");
    expect(csp).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "img-src 'self' data:",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
      ]),
    );
    expect(reply.text.startsWith("<!doctype html>")).toBe(true);
  });

  it("allows exactly its one stylesheet and one script, by hash: nothing inline besides", async () => {
    await seeded();
    const reply = await page();
    const csp = reply.headers["content-security-policy"] ?? "";
    const styles = [...reply.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? "");
    const scripts = [...reply.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
      (m) => m[1] ?? "",
    );

    expect(styles).toHaveLength(1);
    expect(scripts).toHaveLength(1);
    expect(csp).toContain(`style-src ${hash(styles[0] ?? "")}`);
    expect(csp).toContain(`script-src ${hash(scripts[0] ?? "")}`);
    expect(csp).not.toContain("unsafe");
    // No inline style or handler attribute (the CSP would block it), no external resource.
    // Every `<` of a name or text is escaped, so the tags left are the page's own.
    const tags = reply.text.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((t) => /\sstyle=|\son[a-z]+=/i.test(t))).toEqual([]);
    expect(tags.filter((t) => /\s(src|href)="(https?:)?\/\//i.test(t))).toEqual([]);
    expect(reply.text.match(/<script/g)).toHaveLength(1);
  });

  it("lists every certificate of the inventory with its status, fewest days left first", async () => {
    await seeded();
    const listed = rows(await page());

    expect(listed.map((r) => r.status)).toEqual(EXPECTED.map((e) => e.status));
    expect(listed.map((r) => r.days)).toEqual(EXPECTED.map((e) => String(e.daysLeft ?? "")));
    expect(listed.map((r) => r.name)).toEqual(EXPECTED.map((e) => escapeHtml(e.name)));
  });

  it("escapes hostile names, domains, targets and details: they are text, never markup", async () => {
    await seeded();
    const reply = await page();

    for (const hostile of [
      HOSTILE_NAME,
      HOSTILE_SCRIPT_NAME,
      HOSTILE_DOMAIN,
      "<i>AppService</i>",
    ]) {
      expect(reply.text).not.toContain(hostile);
      expect(reply.text).toContain(escapeHtml(hostile));
    }
    expect(reply.text).not.toMatch(/<img|<i>|<b>bold|<script>alert|<\/td><td>&amp;/);
    // The history link encodes the name in the path, and the attribute escapes what is left.
    expect(reply.text).toContain(
      `href="${escapeHtml(`/api/certificates/${encodeURIComponent(HOSTILE_NAME)}`)}"`,
    );
  });

  it.each(["dashboard", "dashboard/", "Dashboard"])(
    "opened as /api/%s, each history link opens the certificate's own route",
    async (path) => {
      await seeded();
      const reply = await app.call(dashboard, httpRequest({ method: "GET", path }));
      const pageUrl = `http://localhost:7071/api/${path}?code=k`;
      const links = [...reply.text.matchAll(/<a href="([^"]*)" data-keep-key>history<\/a>/g)].map(
        (m) => new URL((m[1] ?? "").replaceAll("&amp;", "&"), pageUrl).pathname,
      );

      expect(reply.status).toBe(200);
      expect(links).toHaveLength(EXPECTED.length - 1);
      expect(links[0]).toBe("/api/certificates/old-contoso-com");
      for (const link of links) expect(link).toMatch(/^\/api\/certificates\/[^/]+$/);
    },
  );

  it("shows the counts by status, the last run, the next run and the week's service requests", async () => {
    await seeded();
    const reply = await page();

    expect(reply.text).toMatch(/href="\?status=expiring" data-keep-key>expiring<b>2<\/b>/);
    expect(reply.text).toMatch(/href="\?status=ok" data-keep-key>ok<b>3<\/b>/);
    expect(reply.text).toMatch(/href="\?" data-keep-key aria-current="page">all<b>11<\/b>/);
    const lastRun = /<dd id="last-run">(.*?)<\/dd>/.exec(reply.text)?.[1] ?? "";
    expect(lastRun).toContain(">failed</span>");
    expect(lastRun).toContain('datetime="2026-11-23T03:00:04.000Z"');
    expect(lastRun).toContain("6 h 29 min ago");
    // The schedule 0 0 3 * * * after 09:30 UTC: tomorrow at 03:00.
    const nextRun = /<dd id="next-run">(.*?)<\/dd>/.exec(reply.text)?.[1] ?? "";
    expect(nextRun).toContain('datetime="2026-11-24T03:00:00.000Z"');
    expect(nextRun).toContain("in 17 h 30 min");
    // Nine requests a day apart from now back: the one exactly seven days ago counts, the eighth does not.
    expect(reply.text).toContain('<dd id="requests">8</dd>');
  });

  it("shows the last preflight in its own column and filters by ?preflight=", async () => {
    await seeded();
    const all = await page();
    const cell = (name: string) =>
      new RegExp(
        `<span class="name">${name}</span>.*?<td data-label="Preflight"><div>(.*?)</div></td>`,
      ).exec(all.text)?.[1] ?? "";

    expect(cell("api-contoso-com")).toContain(">will-fail (caa-forbids)</span>");
    expect(cell("api-contoso-com")).toContain(escapeHtml(HOSTILE_SCRIPT_NAME));
    expect(cell("shop-fabrikam-com")).toContain(">unknown</span>");
    expect(cell("www-contoso-com")).toContain(">ready</span>");
    expect(cell("mail-contoso-com")).toBe('<span class="sub">— not checked</span>');
    expect(all.text).toMatch(
      /href="\?preflight=will-fail" data-keep-key aria-label="preflight will-fail: 1">will-fail<b>1<\/b>/,
    );

    const failing = await page({ preflight: "will-fail", status: "expiring" });
    expect(rows(failing).map((r) => r.name)).toEqual(["api-contoso-com"]);
    expect(failing.text).toContain(
      "Showing 1 certificate with status expiring and preflight will-fail of 11.",
    );
  });

  it("filters by ?status=, keeping the counts of all", async () => {
    await seeded();
    const reply = await page({ status: "expiring" });

    expect(rows(reply).map((r) => r.status)).toEqual(["expiring", "expiring"]);
    expect(rows(reply).map((r) => r.days)).toEqual(["3", "11"]);
    expect(reply.text).toContain("Showing 2 certificates with status expiring of 11.");
    expect(reply.text).toMatch(/aria-current="page">expiring<b>2<\/b>/);
  });

  it("never shows a secret planted in the ledger, the verifications or the run history", async () => {
    await seeded();
    const reply = await page();

    expect(app.leaks([reply.text])).toEqual([]);
    for (const secret of Object.values(planted)) expect(reply.text).not.toContain(secret);
    expect(reply.text).toContain("[REDACTED]");
  });

  it.each([
    [{ status: "bogus" }, "status"],
    [{ Status: "ok" }, "Status"],
  ])("refuses %j with 400 naming %s, never a page", async (query, name) => {
    await seeded();
    const reply = await page(query);

    expect(reply.status).toBe(400);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ name }] });
  });

  it("allows ?code= (the function key the host leaves in the URL) and never echoes it", async () => {
    await seeded();
    const key = `key${randomBytes(12).toString("hex")}`;
    const reply = await page({ code: key, status: "ok" });

    expect(reply.status).toBe(200);
    expect(reply.text).not.toContain(key);
  });
});

describe("GET /api/dashboard with any query", () => {
  it("answers the page or a 400 naming a parameter it was sent, never anything else", async () => {
    await seeded();
    const key = fc.oneof(
      fc.constantFrom("status", "code", "Status", "top", "continuation", ""),
      fc.string({ maxLength: 12 }),
    );
    const value = fc.oneof(
      fc.constantFrom("ok", "expiring", "not-landed", "ok,failed", "", "OK", "__proto__"),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, value), { maxLength: 4 }), async (pairs) => {
        const search = new URLSearchParams(pairs).toString();
        const reply = await app.call(
          dashboard,
          httpRequest({ method: "GET", path: `dashboard${search === "" ? "" : `?${search}`}` }),
        );
        expect([200, 400]).toContain(reply.status);
        expect(reply.text).not.toMatch(STACK_FRAME);
        if (reply.status === 200) {
          expect(reply.headers["content-security-policy"]).toContain("default-src 'none'");
          return;
        }
        const sent = new Set(new URLSearchParams(search).keys());
        const { errors } = reply.body as { errors: { name: string }[] };
        expect(errors.length).toBeGreaterThan(0);
        for (const e of errors) {
          const shown = e.name.replace(/(=)?….*$/, "");
          expect(
            [...sent].some((n) => n.startsWith(shown) || e.name === "(unnamed)"),
            e.name,
          ).toBe(true);
        }
      }),
      { numRuns: propertyRuns(60) },
    );
  }, 120_000);
});

describe("GET /api/dashboard when not everything can be read", () => {
  it("without storage: an empty inventory, said plainly", async () => {
    await app.configure({ CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *" }, { now: () => NOW });
    const reply = await page();

    expect(reply.status).toBe(200);
    expect(reply.text).toContain('id="empty"');
    expect(reply.text).toContain('<dd id="last-run">none recorded</dd>');
    expect(rows(reply)).toEqual([]);
  });

  it("storage that does not answer: the page says what could not be read, no stack", async () => {
    const port = await closedPort();
    const connectionString = azurite.connectionString.replace(
      /(TableEndpoint=[a-z]+:\/\/[^:/;]+:)\d+/,
      `$1${port}`,
    );
    await app.configure(
      { ...storage, AzureWebJobsStorage: connectionString, CERTSCHED_HTTP_TIMEOUT: "3s" },
      { now: () => NOW },
    );
    const reply = await page();

    expect(reply.status).toBe(200);
    const problems = /<section class="problems" role="alert">(.*?)<\/section>/.exec(reply.text);
    expect(problems?.[1]).toContain("certificates could not be read");
    expect(problems?.[1]).toContain("the last run could not be read");
    expect(problems?.[1]).toContain("the service requests could not be counted");
    expect(reply.text).not.toMatch(STACK_FRAME);
  }, 60_000);

  it.each([
    [undefined, "unknown: CERTSCHED_RENEWAL_SCHEDULE is not set"],
    ["0 0 3 * *", "unknown: CERTSCHED_RENEWAL_SCHEDULE must have six fields"],
    ["0 0 0 31 2 *", "never: the schedule <code>0 0 0 31 2 *</code> matches no date"],
  ])("schedule %j: the next run reads %j", async (schedule, text) => {
    await seeded({ CERTSCHED_RENEWAL_SCHEDULE: schedule });
    const reply = await page();

    expect(/<dd id="next-run">(.*?)<\/dd>/.exec(reply.text)?.[1]).toContain(text);
  });

  it.each([
    [
      "W. Europe Standard Time",
      "unknown: the host runs CERTSCHED_RENEWAL_SCHEDULE in WEBSITE_TIME_ZONE (W. Europe Standard Time)",
    ],
    ["UTC", 'datetime="2026-11-24T03:00:00.000Z"'],
  ])("WEBSITE_TIME_ZONE %j: the next run reads %j", async (zone, text) => {
    await seeded({ WEBSITE_TIME_ZONE: zone });
    const reply = await page();

    expect(/<dd id="next-run">(.*?)<\/dd>/.exec(reply.text)?.[1]).toContain(text);
  });
});

describe("GET /api/dashboard and who may see it", () => {
  const principal = (roles: readonly string[]) => ({
    "x-ms-client-principal": principalHeader({ name: "ada@contoso.com", roles }),
  });

  it.each([
    [[READER], 200],
    [[OPERATOR], 200],
    [["other.App.Role"], 403],
  ])("behind Easy Auth, roles %j: %i", async (roles, status) => {
    await seeded();
    process.env.WEBSITE_AUTH_ENABLED = "True";
    const reply = await page({}, principal(roles));

    expect(reply.status).toBe(status);
    if (status === 403) {
      expect(reply.body).toMatchObject({
        code: "FORBIDDEN",
        errors: [{ name: "role", message: `${READER} required` }],
      });
      expect(reply.text).not.toContain("<table");
    }
  });

  it("without Easy Auth a principal header proves nothing: ignored, roles or not, well formed or not", async () => {
    await seeded();
    const none = await page({}, principal([]));
    const malformed = await page({}, { "x-ms-client-principal": "e30" });

    expect([none.status, malformed.status]).toEqual([200, 200]);
    expect(rows(none)).toHaveLength(EXPECTED.length);
  });

  it("a malformed principal is 400, never 500", async () => {
    await seeded();
    process.env.WEBSITE_AUTH_ENABLED = "True";
    const reply = await page({}, { "x-ms-client-principal": "e30" });

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ errors: [{ name: "x-ms-client-principal" }] });
  });

  it("over HTTP, like the host for authLevel function: 401 without the key, the page with it", async () => {
    await seeded();
    const key = `key${randomBytes(12).toString("hex")}`;
    const server = await startLocalServer({
      routes: { "/api/dashboard": dashboard },
      functionKey: key,
    });
    try {
      const url = `${server.origin}/api/dashboard`;
      const none = await fetch(url);
      const wrong = await fetch(`${url}?code=${key.slice(0, -1)}x`);
      const byQuery = await fetch(`${url}?code=${key}&status=stuck`);
      const byHeader = await fetch(url, { headers: { "x-functions-key": key } });

      expect([none.status, wrong.status, byQuery.status, byHeader.status]).toEqual([
        401, 401, 200, 200,
      ]);
      expect(await none.text()).toBe("");
      const text = await byQuery.text();
      expect(text).toContain('data-status="stuck"');
      expect(text).not.toContain('data-status="ok"');
      expect(text).not.toContain(key);
      expect(byHeader.headers.get("content-security-policy")).toContain("default-src 'none'");
    } finally {
      await server.close();
    }
  });
});
