import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificate } from "../../../functions/createCertificate.js";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { runRenewals } from "../../../functions/runRenewals.js";
import { testConnectivity } from "../../../functions/testConnectivity.js";
import { getAccountPorts } from "../../../shared/app/services.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type AppHarness, type Reply, STACK_FRAME, startHarness } from "../../support/app.js";
import { validCreateInputs } from "../../support/createBodies.js";
import { httpRequest, streamingRequest } from "../../support/invoke.js";

/*
 * Strict input at the HTTP edge: a query parameter a function does not take, or one given twice, is
 * refused before any work; a body that is not UTF-8 is refused before anything is sent. Every case
 * goes through the exported handler to the simulator.
 */

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

/** A function key as a caller would pass it with `?code=`: must never come back. */
const FUNCTION_KEY = "fn-key-Zm9vYmFyYmF6cXV4LWZ1bmN0aW9uLWtleQ==";
const VALID = validCreateInputs().appServiceHttp;

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      { certificateName: "www-contoso-com", expiryDate: new Date(Date.now() + 5 * DAY_MS) },
    ],
  });
  app.addSecrets(FUNCTION_KEY);
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
});
afterEach(async () => {
  // POST /api/renewals queues its run; without storage it is swept in this process: let it end.
  await getAccountPorts().runs.settled();
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

/** The five HTTP functions, each with a request that succeeds when the query is clean. */
const FUNCTIONS: {
  name: string;
  handler: Handler;
  path: string;
  method: string;
  ok: number;
  params?: Record<string, string>;
  json?: unknown;
}[] = [
  {
    name: "createCertificate",
    handler: createCertificate,
    path: "certificates",
    method: "POST",
    ok: 202,
    json: VALID,
  },
  {
    name: "renewCertificate",
    handler: renewCertificate,
    path: "certificates/www-contoso-com/renew",
    method: "POST",
    ok: 202,
    params: { name: "www-contoso-com" },
  },
  {
    name: "listDueCertificates",
    handler: listDueCertificates,
    path: "certificates/due",
    method: "GET",
    ok: 200,
  },
  {
    name: "testConnectivity",
    handler: testConnectivity,
    path: "connectivity",
    method: "GET",
    ok: 200,
  },
  // 202: the run is queued (docs/runs.md).
  { name: "runRenewals", handler: runRenewals, path: "renewals", method: "POST", ok: 202 },
];

/** Calls `fn` with `query` (raw, without "?") appended to its path, exactly as given. */
function callWith(fn: (typeof FUNCTIONS)[number], query: string): Promise<Reply> {
  return app.call(
    fn.handler,
    httpRequest({
      method: fn.method,
      path: query === "" ? fn.path : `${fn.path}?${query}`,
      ...(fn.params ? { params: fn.params } : {}),
      ...(fn.json === undefined ? {} : { json: fn.json }),
    }),
  );
}

function expectQueryProblem(reply: Reply): { name: string; message: string }[] {
  expect(reply.status, reply.text).toBe(400);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  expect(reply.text).not.toMatch(STACK_FRAME);
  const body = reply.body as { code: string; errors: { name: string; message: string }[] };
  expect(body.code).toBe("VALIDATION_FAILED");
  return body.errors;
}

const runRenewalsFn = FUNCTIONS.find((f) => f.name === "runRenewals") as (typeof FUNCTIONS)[number];

describe("query parameters: POST /api/renewals", () => {
  it.each([
    ["dryrun=true", "dryrun", "did you mean dryRun?"],
    ["DryRun=true", "DryRun", "did you mean dryRun?"],
    ["dry_run=true", "dry_run", "did you mean dryRun?"],
    ["dry-run=true", "dry-run", "did you mean dryRun?"],
    ["dryRun%3Dtrue", "dryRun=…", 'its "=" arrived percent-encoded (%3D); send dryRun=<value>'],
    ["dryRun=true&dryrun=true", "dryrun", "did you mean dryRun?"],
    [
      "verbose=1",
      "verbose",
      "is not a query parameter of this function (it takes dryRun, force, wait)",
    ],
  ])("?%s is refused naming %s, and nothing is swept", async (query, name, rule) => {
    const errors = expectQueryProblem(await callWith(runRenewalsFn, query));

    expect(errors).toEqual([{ name, message: expect.stringContaining(rule) }]);
    expect(errors[0]?.message).toMatch(
      /^is not a query parameter of this function \(it takes dryRun, force, wait\)/,
    );
    // Not even the list: a refused request does no work.
    expect(app.sim.requests).toEqual([]);
  });

  it.each([
    ["dryRun=false&dryRun=true", 2],
    ["dryRun=true&dryRun=true", 2],
    ["dryRun=true&dryRun=true&dryRun=true", 3],
    ["dryRun&dryRun=true", 2],
  ])("?%s (repeated) is refused naming dryRun, and nothing is swept", async (query, times) => {
    const errors = expectQueryProblem(await callWith(runRenewalsFn, query));

    expect(errors).toEqual([
      { name: "dryRun", message: `is given ${times} times: give it at most once` },
    ]);
    expect(app.sim.requests).toEqual([]);
  });

  it("names every offending parameter at once, in the order given", async () => {
    const errors = expectQueryProblem(
      await callWith(runRenewalsFn, "dryRun=true&dryRun=false&x=1&DRYRUN=true"),
    );

    expect(errors.map((e) => e.name)).toEqual(["dryRun", "x", "DRYRUN"]);
    expect(app.sim.requests).toEqual([]);
  });

  it("still runs with ?dryRun=true (and ?wait): decides, renews nothing", async () => {
    const reply = await callWith(runRenewalsFn, "dryRun=true&wait=30");

    expect(reply.status, reply.text).toBe(200);
    expect((reply.body as { dryRun: boolean }).dryRun).toBe(true);
    expect(app.sim.requestsFor("list")).toHaveLength(1);
    expect(app.sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("a bad dryRun value is still refused by its own rule", async () => {
    const errors = expectQueryProblem(await callWith(runRenewalsFn, "dryRun=yes"));

    expect(errors).toEqual([{ name: "dryRun", message: 'must be "true" or "false"' }]);
    expect(app.sim.requests).toEqual([]);
  });
});

describe.each(FUNCTIONS)("query parameters: $name", (fn) => {
  it("answers as usual with no query at all", async () => {
    const reply = await callWith(fn, "");

    expect(reply.status, reply.text).toBe(fn.ok);
  });

  it("allows ?code= (the function key) and never echoes it", async () => {
    const reply = await callWith(fn, `code=${encodeURIComponent(FUNCTION_KEY)}`);

    expect(reply.status, reply.text).toBe(fn.ok);
    // afterEach: the key is in no response body and no log line.
  });

  it("refuses an unknown parameter with 400 naming it, and calls nobody", async () => {
    const errors = expectQueryProblem(await callWith(fn, "verbose=1"));

    expect(errors).toEqual([
      {
        name: "verbose",
        message: expect.stringMatching(/^is not a query parameter of this function/),
      },
    ]);
    expect(app.sim.requests).toEqual([]);
  });

  it("refuses a repeated ?code= naming code, without echoing either value", async () => {
    const errors = expectQueryProblem(
      await callWith(
        fn,
        `code=${encodeURIComponent(FUNCTION_KEY)}&code=${encodeURIComponent(FUNCTION_KEY)}x`,
      ),
    );

    expect(errors).toEqual([{ name: "code", message: "is given 2 times: give it at most once" }]);
    expect(app.sim.requests).toEqual([]);
  });

  it("refuses ?code%3D<key> without echoing the key", async () => {
    const errors = expectQueryProblem(
      await callWith(fn, `code%3D${encodeURIComponent(FUNCTION_KEY)}`),
    );

    expect(errors).toEqual([
      { name: "code=…", message: expect.stringContaining("send code=<value>") },
    ]);
    expect(app.sim.requests).toEqual([]);
  });

  it("refuses ?Code= (names are case-sensitive), suggesting code, without echoing the key", async () => {
    const errors = expectQueryProblem(
      await callWith(fn, `Code=${encodeURIComponent(FUNCTION_KEY)}`),
    );

    expect(errors).toEqual([
      { name: "Code", message: expect.stringContaining("did you mean code?") },
    ]);
  });
});

describe("query parameters: names quoted back", () => {
  const connectivity = FUNCTIONS.find(
    (f) => f.name === "testConnectivity",
  ) as (typeof FUNCTIONS)[number];

  it("a parameter without a name is refused as (unnamed)", async () => {
    const errors = expectQueryProblem(await callWith(connectivity, "=1"));

    expect(errors).toEqual([
      { name: "(unnamed)", message: expect.stringContaining("a parameter has no name") },
    ]);
  });

  it("quotes a 64-character name whole and cuts a 65-character one", async () => {
    const exact = "n".repeat(64);
    const over = "m".repeat(65);

    const errors = expectQueryProblem(await callWith(connectivity, `${exact}=1&${over}=1`));

    expect(errors.map((e) => e.name)).toEqual([exact, `${"m".repeat(64)}…`]);
  });

  it("makes control characters in a name visible", async () => {
    const errors = expectQueryProblem(await callWith(connectivity, "a%0Ab%1B%5B2J=1"));

    expect(errors.map((e) => e.name)).toEqual(["a\\u{0a}b\\u{1b}[2J"]);
  });

  it("never quotes the value of an unknown parameter", async () => {
    const reply = await callWith(connectivity, "apiKey=value-that-must-not-come-back");

    expect(expectQueryProblem(reply).map((e) => e.name)).toEqual(["apiKey"]);
    expect(reply.text).not.toContain("value-that-must-not-come-back");
    expect(app.logs.map((l) => l.message).join("\n")).not.toContain(
      "value-that-must-not-come-back",
    );
  });
});

describe("request bodies: UTF-8 only", () => {
  /** A valid create body with `password` spliced in as raw bytes. */
  function bodyWithPassword(password: Uint8Array): Uint8Array {
    const [before, after] = JSON.stringify({ ...VALID, password: "@@" }).split("@@");
    return Buffer.concat([Buffer.from(before ?? ""), password, Buffer.from(after ?? "")]);
  }

  function post(body: Uint8Array, contentType = "application/json"): Promise<Reply> {
    return app.call(
      createCertificate,
      httpRequest({ path: "certificates", body, headers: { "content-type": contentType } }),
    );
  }

  function expectUtf8Problem(reply: Reply): void {
    expect(reply.status, reply.text).toBe(400);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect((reply.body as { errors: unknown }).errors).toEqual([
      {
        name: "(body)",
        message: expect.stringMatching(
          /^is not valid UTF-8 \(invalid bytes near byte \d+\): send JSON encoded as UTF-8$/,
        ),
      },
    ]);
    // Nothing reached the service, not even a token request.
    expect(app.sim.requestsFor("create")).toEqual([]);
    expect(app.sim.requests).toEqual([]);
  }

  it("refuses a latin-1 password (P\\xe4ssw\\xf6rd) instead of forwarding P\\ufffdssw\\ufffdrd", async () => {
    const latin1 = Buffer.from("Pässwörd", "latin1");
    expect([...latin1]).toContain(0xe4);

    const reply = await post(bodyWithPassword(latin1));

    expectUtf8Problem(reply);
    expect(reply.text).not.toContain("\ufffd");
  });

  it.each([
    ["a lone continuation byte", [0x80]],
    ["an overlong '/' (C0 AF)", [0xc0, 0xaf]],
    ["a UTF-16 surrogate (ED A0 80)", [0xed, 0xa0, 0x80]],
    ["a code point above U+10FFFF (F4 90 80 80)", [0xf4, 0x90, 0x80, 0x80]],
    ["0xFF", [0xff]],
  ])("refuses %s in a field", async (_, bytes) => {
    expectUtf8Problem(await post(bodyWithPassword(Uint8Array.from(bytes))));
  });

  it("refuses a body cut in the middle of a character, at its end", async () => {
    const body = Buffer.concat([Buffer.from(JSON.stringify(VALID)), Buffer.from([0xc3])]);

    const reply = await post(body);

    expectUtf8Problem(reply);
    expect((reply.body as { errors: { message: string }[] }).errors[0]?.message).toContain(
      `near byte ${body.length}`,
    );
  });

  it("refuses UTF-16 (with its byte order mark)", async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(JSON.stringify(VALID), "utf16le"),
    ]);

    expectUtf8Problem(await post(utf16));
  });

  it("forwards a UTF-8 password exactly as sent", async () => {
    const reply = await post(bodyWithPassword(Buffer.from("Pässwörd-ünïcødé-✓-😀")));

    expect(reply.status, reply.text).toBe(202);
    const [sent] = app.sim.requestsFor("create");
    expect(JSON.parse(sent?.body ?? "{}").password).toBe("Pässwörd-ünïcødé-✓-😀");
  });

  it("accepts a UTF-8 byte order mark and drops it", async () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify(VALID)),
    ]);

    const reply = await post(body);

    expect(reply.status, reply.text).toBe(202);
    const [sent] = app.sim.requestsFor("create");
    expect(JSON.parse(sent?.body ?? "{}")).toMatchObject({
      certificateName: VALID.certificateName,
      password: VALID.password,
    });
  });

  it("a byte order mark alone is an empty body", async () => {
    const reply = await post(Uint8Array.from([0xef, 0xbb, 0xbf]));

    expect(reply.status).toBe(400);
    expect((reply.body as { errors: unknown }).errors).toEqual([
      { name: "(body)", message: "is required: send a JSON object" },
    ]);
    expect(app.sim.requests).toEqual([]);
  });

  it("decodes characters split across streamed chunks", async () => {
    const password = "ä😀ö€ü".repeat(20);
    // 7-byte chunks split every multi-byte character somewhere.
    const { request } = streamingRequest(
      { path: "certificates", content: JSON.stringify({ ...VALID, password }) },
      7,
    );

    const reply = await app.call(createCertificate, request);

    expect(reply.status, reply.text).toBe(202);
    expect(JSON.parse(app.sim.requestsFor("create")[0]?.body ?? "{}").password).toBe(password);
  });

  it.each([
    "application/json; charset=iso-8859-1",
    "application/json; charset=latin1",
    'application/json; charset="utf-16"',
  ])("refuses Content-Type %s with 415 (JSON is UTF-8)", async (type) => {
    const reply = await post(Buffer.from(JSON.stringify(VALID)), type);

    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      detail: "request body must be application/json, encoded as UTF-8",
    });
    expect(app.sim.requests).toEqual([]);
  });

  it.each([
    "application/json; charset=utf-8",
    "application/json; charset=UTF-8",
    'application/json;charset="utf8"',
  ])("accepts Content-Type %s", async (type) => {
    const reply = await post(Buffer.from(JSON.stringify(VALID)), type);

    expect(reply.status, reply.text).toBe(202);
  });
});
