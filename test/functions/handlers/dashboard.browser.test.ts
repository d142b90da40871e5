import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../../cli/sandbox.js";
import { type SandboxDashboard, serveSandboxDashboard } from "../../../cli/sandboxDashboard.js";
import { dashboard } from "../../../functions/dashboard.js";
import { type LocalServer, startLocalServer } from "../../../shared/edge/localServer.js";
import { type AppHarness, startHarness } from "../../support/app.js";
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

/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core, the page served
 * by the function handler over a real loopback HTTP server that checks the function key as the
 * host does. Asserts on the DOM a person sees, on what the browser reported (console errors,
 * CSP violations) and on every request the page made, over fixtures with hostile names. The
 * screenshots docs/ shows (docs/images/dashboard-360.png and dashboard-1920.png, the README's)
 * are of the sandbox's dashboard instead, what `certsched sandbox --dashboard` serves: every run
 * of this file writes them afresh, as the only way to regenerate them.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const IMAGES = join(root, "docs", "images");
/** Generous: a cold browser on a busy 2-core machine; nothing here asserts on time. */
const SLOW = 120_000;

let azurite: AzuriteHandle;
let app: AppHarness;
let server: LocalServer;
let browser: Browser;
let planted: Planted;
const key = `key${randomBytes(16).toString("hex")}`;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium)`);
  }
  azurite = await startAzurite();
  app = await startHarness();
  planted = {
    apiKey: app.sim.options.apiKey,
    clientSecret: app.sim.options.clientSecret,
    webhookSignature: `sig${randomBytes(16).toString("hex")}`,
  };
  await seedDashboard(azurite.connectionString, planted);
  await app.configure(
    {
      AzureWebJobsStorage: azurite.connectionString,
      CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *",
      CERTSCHED_WEBHOOK_URL: `https://hooks.example.com/run?sig=${planted.webhookSignature}`,
    },
    { now: () => NOW },
  );
  server = await startLocalServer({ routes: { "/api/dashboard": dashboard }, functionKey: key });
  // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox"],
    timeout: SLOW,
  });
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await app?.close();
  await azurite?.stop();
});

/** A page and everything it reported: console errors, page errors, every request it made. */
interface Visit {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly errors: string[];
  readonly requests: string[];
  /** The origin of the server visited: the only one the page may reach. */
  readonly origin: string;
}

/** A page of the fixtures' dashboard, `path` on its server. */
async function visit(width: number, path: string): Promise<Visit> {
  return visitUrl(width, `${server.origin}${path}`);
}

async function visitUrl(width: number, address: string): Promise<Visit> {
  const { origin } = new URL(address);
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (message) => {
    // CSP violations are reported here too ("Refused to load ...").
    if (message.type() === "error" || message.type() === "warning") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  // Nothing may leave loopback: each request is recorded, and any other is refused.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requests.push(url);
    return url.startsWith(`${origin}/`) ? route.continue() : route.abort();
  });
  const response = await page.goto(address, { timeout: SLOW });
  expect(response?.status()).toBe(200);
  return { page, context, errors, requests, origin };
}

/** No error reported, no request off the page's server, none of `secrets` on the page. */
async function done(
  v: Visit,
  secrets: readonly string[] = [...app.secrets(), ...Object.values(planted)],
): Promise<void> {
  expect(v.errors).toEqual([]);
  expect(v.requests.filter((url) => !url.startsWith(`${v.origin}/`))).toEqual([]);
  const html = await v.page.content();
  for (const secret of secrets) expect(html).not.toContain(secret);
  await v.context.close();
}

/**
 * Asserts that nothing on the page sticks out at `width` (no sideways scrolling) and that it has
 * the layout of that width: cards with labelled lines when narrow, a table with its head when wide.
 */
async function expectReadable(page: Page, width: number): Promise<void> {
  const scrollWidth = await page.$eval("html", (html) => html.scrollWidth);
  // Nothing sticks out on the right (named, so a failure says what).
  const beyond = await page.$$eval(
    "body *",
    (elements, w) =>
      elements
        .filter((e) => e.getBoundingClientRect().right > w)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
    width,
  );
  expect(beyond).toEqual([]);
  expect(scrollWidth).toBeLessThanOrEqual(width);
  expect(await page.locator("thead").isVisible()).toBe(width > 900);
  expect(await page.locator("tbody tr").first().isVisible()).toBe(true);
}

const rows = (page: Page) =>
  page.$$eval("tbody tr", (trs) =>
    trs.map((tr) => ({
      status: tr.getAttribute("data-status"),
      days: tr.getAttribute("data-days"),
      name: tr.querySelector(".name")?.textContent ?? "",
    })),
  );

describe("the dashboard in chromium", () => {
  it(
    "lists every certificate, fewest days left first, hostile names shown as text",
    async () => {
      const v = await visit(1920, `/api/dashboard?code=${key}`);
      const listed = await rows(v.page);

      expect(listed.map((r) => r.name)).toEqual(EXPECTED.map((e) => e.name));
      expect(listed.map((r) => r.status)).toEqual(EXPECTED.map((e) => e.status));
      expect(listed.map((r) => r.days)).toEqual(EXPECTED.map((e) => String(e.daysLeft ?? "")));
      // The names did not become markup: no image, no script of theirs ran.
      expect(await v.page.title()).toBe("certsched: certificates");
      expect(await v.page.locator("img").count()).toBe(0);
      expect(await v.page.locator("script").count()).toBe(1);
      expect(await v.page.locator("tbody i, tbody b").count()).toBe(0);
      const texts = await v.page.locator("tbody").innerText();
      for (const hostile of [HOSTILE_NAME, HOSTILE_SCRIPT_NAME, HOSTILE_DOMAIN]) {
        expect(texts).toContain(hostile);
      }
      // Days left: a bar AND its words.
      const first = v.page.locator("tbody tr").first();
      expect(await first.locator(".days-text").innerText()).toBe("expired 2 days ago");
      expect(await first.locator(".fill").getAttribute("class")).toContain("band-bad");
      await done(v);
    },
    SLOW,
  );

  it(
    "filters by status with links that keep the function key, and reloads with the filter",
    async () => {
      const v = await visit(1920, `/api/dashboard?code=${key}`);
      await v.page.getByRole("link", { name: "expiring2" }).click();
      await v.page.waitForURL(/status=expiring/, { timeout: SLOW });

      const url = new URL(v.page.url());
      expect(url.searchParams.get("status")).toBe("expiring");
      expect(url.searchParams.get("code")).toBe(key);
      expect((await rows(v.page)).map((r) => [r.name, r.status])).toEqual([
        ["shop-fabrikam-com", "expiring"],
        ["api-contoso-com", "expiring"],
      ]);
      // The page reloads itself; a reload of the same URL keeps the filter.
      expect(await v.page.locator('meta[http-equiv="refresh"]').getAttribute("content")).toBe(
        "300",
      );
      await v.page.reload({ timeout: SLOW });
      expect((await rows(v.page)).map((r) => r.status)).toEqual(["expiring", "expiring"]);
      // The history link carries the key too, to this app, the name encoded.
      const history = await v.page.locator("tbody a").first().getAttribute("href");
      expect(history).toBe(`${server.origin}/api/certificates/shop-fabrikam-com?code=${key}`);

      await v.page.getByRole("link", { name: "all11" }).click();
      await v.page.waitForURL((u) => !u.searchParams.has("status"), { timeout: SLOW });
      expect(await rows(v.page)).toHaveLength(EXPECTED.length);
      await done(v);
    },
    SLOW,
  );

  it(
    "the CSP is in force: an image from elsewhere is refused, and reported",
    async () => {
      const v = await visit(1920, `/api/dashboard?code=${key}`);
      await v.page.$eval("body", (body) => {
        const img = body.ownerDocument.createElement("img");
        img.src = "https://cdn.example.com/pixel.png";
        body.append(img);
      });
      await expect
        .poll(() => v.errors.some((e) => e.includes("Content Security Policy")), {
          timeout: SLOW,
        })
        .toBe(true);
      // Refused by the browser before any request: nothing reached the router.
      expect(v.requests.filter((u) => u.includes("cdn.example.com"))).toEqual([]);
      await v.context.close();
    },
    SLOW,
  );

  it(
    "without the function key: 401, as the host answers",
    async () => {
      const context = await browser.newContext();
      // The browser's own request stack (cookies, headers as chromium sends them); a 401 with
      // no body is no page to navigate to.
      const response = await context.request.get(`${server.origin}/api/dashboard`, {
        timeout: SLOW,
      });
      expect(response.status()).toBe(401);
      expect(await response.text()).toBe("");
      await context.close();
    },
    SLOW,
  );

  it.each([360, 1920])(
    "is readable at %i px (no sideways scrolling), hostile names and all",
    async (width) => {
      const v = await visit(width, `/api/dashboard?code=${key}`);
      await expectReadable(v.page, width);
      await done(v);
    },
    SLOW,
  );
});

describe("the sandbox's dashboard in chromium (the screenshots docs/ shows)", () => {
  let sandbox: Sandbox;
  let served: SandboxDashboard;

  beforeAll(async () => {
    // What `certsched sandbox --dashboard` serves: one sweep and one verification of each
    // sandbox account, then one page per account.
    sandbox = await startSandbox();
    served = await serveSandboxDashboard(sandbox);
  }, SLOW);

  afterAll(async () => {
    await served?.close();
    await sandbox?.close();
  });

  it.each([
    [360, "dashboard-360.png"],
    [1920, "dashboard-1920.png"],
  ])(
    "contoso's page is readable at %i px and saved as docs/images/%s",
    async (width, file) => {
      // Contoso's page: the account where the sandbox stages a failed renewal and one that has
      // not landed, beside the renewals that went through.
      const v = await visitUrl(width, served.urls.contoso ?? "");
      expect(await v.page.title()).toBe("certsched: certificates");
      const statuses = (await rows(v.page)).map((r) => r.status);
      expect(statuses).toContain("ok");
      expect(statuses).toContain("failed");
      expect(statuses).toContain("pending");
      await expectReadable(v.page, width);
      await mkdir(IMAGES, { recursive: true });
      await v.page.screenshot({ path: join(IMAGES, file), fullPage: true, timeout: SLOW });
      await done(v, sandbox.secrets());
    },
    SLOW,
  );
});
