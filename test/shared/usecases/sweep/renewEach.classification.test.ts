import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_CONFIRMATION_BYTES } from "../../../../shared/adapters/service/responses.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { silentLogger } from "../../../../shared/lib/log.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { type Fault, type Simulator, toCertificateRecord } from "../../../../sim/index.js";
import { renewDueWith } from "../../../support/renewDue.js";
import {
  createInput,
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  type Sandbox,
  startSandbox,
  textsOf,
} from "../../../support/simulatorServices.js";

/*
 * Any 2xx used to count as "scheduled", even a 2 KB HTML block page, and the page
 * became the detail. A success is now a 2xx with a text/plain (or absent) content type and a
 * plausible plain-text body: at most MAX_CONFIRMATION_BYTES, and not beginning with a tag.
 * Anything else is UPSTREAM_BAD_RESPONSE with status, content type and page title, never the page.
 */

let sandbox: Sandbox;
let sim: Simulator;
let runtime: AccountPorts;

type ConfirmingOp = "create" | "renew" | "publicRenew" | "test";

const CALLS: Record<ConfirmingOp, (r: AccountPorts) => Promise<string>> = {
  create: (r) => r.client.create(createInput("appServiceHttp")),
  renew: (r) => r.client.renew("block-page"),
  publicRenew: (r) =>
    r.client.renewListed({
      certificateName: "block-page",
      target: "Cloud App Service",
      renewal: "Automatic",
      id: 1,
      subscriptionId: 1001,
    }),
  test: (r) => r.client.test(),
};
const OPS = Object.keys(CALLS) as ConfirmingOp[];

/** The kind of page a proxy or gateway answers 200 with, padded to about 2 KB. */
const BLOCK_PAGE = `<!DOCTYPE html><html><head><title>Access Denied by policy</title></head><body>${"<p>This site is blocked by your organisation's web filter.</p>".repeat(32)}<p>Reference: SECRET-LOOKING-REF-4711</p></body></html>`;

beforeAll(async () => {
  sandbox = await startSandbox({
    sim: {
      certificates: [
        { certificateName: "block-page", expiryDate: new Date(Date.now() + 5.5 * DAY_MS), id: 1 },
      ],
    },
  });
  sim = sandbox.sim;
});
beforeEach(() => {
  sim.reset();
  runtime = runtimeFor(sim);
});
afterEach(() => runtime.close());
afterAll(async () => {
  await sandbox.close();
  expectNoSecretLeaks();
});

describe.each(OPS)("%s: a 2xx that is not the service's plain-text confirmation", (op) => {
  it.each<[string, Fault, RegExp]>([
    [
      "an HTML block page (text/html)",
      { status: 200, headers: { "content-type": "text/html; charset=utf-8" }, body: BLOCK_PAGE },
      /answered 200 with content type text\/html: HTML page "Access Denied by policy", not the plain-text confirmation the service sends$/,
    ],
    [
      "an HTML page typed text/plain",
      { status: 200, headers: { "content-type": "text/plain" }, body: BLOCK_PAGE.slice(0, 400) },
      /answered 200 with markup \(content type text\/plain\): HTML page "Access Denied by policy", not/,
    ],
    [
      "a page without a doctype, typed text/plain",
      { status: 200, body: "\n  <div class=blocked>Blocked: web filter</div>" },
      /answered 200 with markup \(content type text\/plain\): HTML page without a title, not/,
    ],
    [
      "JSON (application/json)",
      { status: 200, headers: { "content-type": "application/json" }, body: '{"ok":true}' },
      /answered 200 with content type application\/json, not the plain-text confirmation/,
    ],
    [
      "a 202 image",
      { status: 202, headers: { "content-type": "image/png" }, body: "\u0089PNG" },
      /answered 202 with content type image\/png, not/,
    ],
    [
      `plain text one byte over ${MAX_CONFIRMATION_BYTES}`,
      { status: 200, body: "a".repeat(MAX_CONFIRMATION_BYTES + 1) },
      /answered 200 with 8193 bytes of text, more than the 8192 a confirmation holds \(content type text\/plain\), not/,
    ],
  ])("%s is UPSTREAM_BAD_RESPONSE, with no part of the body", async (_, fault, message) => {
    sim.inject(op, fault);

    const error = await failure(CALLS[op](runtime));

    expect(error).toMatchObject({
      code: "UPSTREAM_BAD_RESPONSE",
      upstream: op,
      status: fault.status,
      retriable: false,
    });
    expect(error.message).toMatch(message);
    for (const text of textsOf(error)) {
      expect(text).not.toContain("web filter");
      expect(text).not.toContain("SECRET-LOOKING-REF");
      expect(text).not.toContain("aaaaaaaaaa");
    }
    // Not retried: a 2xx is an answer, whatever it says.
    expect(sim.requestsFor(op)).toHaveLength(1);
  });
});

describe.each(OPS)("%s: what still counts as the service's confirmation", (op) => {
  it.each<[string, Fault]>([
    ["text/plain; charset=utf-8", { status: 200, body: "Scheduled." }],
    [
      "upper-case TEXT/PLAIN",
      { status: 200, headers: { "content-type": "TEXT/PLAIN" }, body: "Ok" },
    ],
    [
      "an empty content type (as absent)",
      { status: 200, headers: { "content-type": "" }, body: "Ok" },
    ],
    [
      `exactly ${MAX_CONFIRMATION_BYTES} bytes, with tabs and line breaks`,
      { status: 200, body: `a\tb\r\n${"c".repeat(MAX_CONFIRMATION_BYTES - 5)}` },
    ],
    ["an empty body", { status: 200, body: "" }],
    [
      "a sentence quoting a name with markup and control characters",
      { status: 200, body: "Certificate <html>\u001b[2J is scheduled for creation." },
    ],
    [
      `the longest name (1,024 four-byte characters) quoted`,
      { status: 200, body: `Certificate ${"𝔠".repeat(1024)} is scheduled for creation.` },
    ],
  ])("%s", async (_, fault) => {
    sim.inject(op, fault);

    await expect(CALLS[op](runtime)).resolves.toBe(fault.body);
  });
});

describe("the sweep", () => {
  it("reports a renewal answered with a block page as failed, naming status, type and title", async () => {
    sim.inject("publicRenew", {
      status: 200,
      headers: { "content-type": "text/html" },
      body: BLOCK_PAGE,
    });

    const summary = await renewDueWith({
      client: runtime.client,
      ledger: memoryLedger(),
      log: silentLogger,
      now: () => new Date(),
      concurrency: 1,
      graceMs: 2 * 3_600_000,
      dryRun: false,
    });

    expect(summary.failed).toBe(true);
    expect(summary.results).toEqual([
      expect.objectContaining({
        certificateName: "block-page",
        outcome: "failed",
        error: "UPSTREAM_BAD_RESPONSE",
        status: 200,
      }),
    ]);
    const [result] = summary.results;
    expect(result?.detail).toContain('content type text/html: HTML page "Access Denied by policy"');
    expect(JSON.stringify(summary)).not.toContain("web filter");
  });
});

describe("the list's 200 is JSON", () => {
  it.each([
    ["application/json; charset=utf-8"],
    ["Application/JSON;charset=UTF-8"],
    ["application/vnd.service+json"],
    [""],
  ])("content type %j is read", async (contentType) => {
    const body = JSON.stringify(sim.certificates().map(toCertificateRecord));
    sim.inject("list", { status: 200, headers: { "content-type": contentType }, body });

    const due = await runtime.client.listDue();

    expect(due.certificates.map((c) => c.certificateName)).toEqual(["block-page"]);
  });

  it.each([
    [
      "text/html",
      "<html><head><title>Sign in</title></head><body>[]</body></html>",
      /HTML page "Sign in"/,
    ],
    ["text/plain", "[]", /content type text\/plain, not the JSON array/],
  ])("content type %s is UPSTREAM_BAD_RESPONSE", async (contentType, body, message) => {
    sim.inject("list", { status: 200, headers: { "content-type": contentType }, body });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_BAD_RESPONSE", upstream: "list", status: 200 });
    expect(error.message).toMatch(message);
  });
});
