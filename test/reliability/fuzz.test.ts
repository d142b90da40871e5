import { isUtf8 } from "node:buffer";
import { randomInt } from "node:crypto";
import { HttpRequest, type HttpResponseInit, type InvocationContext } from "@azure/functions";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../functions/createCertificate.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { testConnectivity } from "../../functions/testConnectivity.js";
import { loadSettings } from "../../shared/app/config/settings.js";
import { createAccountPorts, getAccountPorts } from "../../shared/app/services.js";
import { createCertificateInput } from "../../shared/core/certificate/createRequest.js";
import { memoryLedger } from "../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../shared/lib/time.js";
import type { Simulator } from "../../sim/index.js";
import { configureApp, releaseApp } from "../support/app.js";
import { propertyRuns } from "../support/fastCheck.js";
import { httpRequest } from "../support/invoke.js";
import { type Reply, toReply } from "../support/reply.js";
import {
  anyJson,
  applyMutation,
  contentType,
  headers,
  method,
  mutatedCreate,
  nested,
  nestedText,
  rawQuery,
  takesBody,
  validCreate,
} from "./support/arbitraries.js";
import { Capture } from "./support/capture.js";
import { settingsFor, startSim } from "./support/staging.js";
import { reportTally } from "./support/tally.js";

/*
 * Fuzz: at least 10,000 generated inputs per HTTP function, through the exported handlers with
 * the runtime pointed at the simulator. Whatever arrives: never a 5xx; every 4xx is
 * application/problem+json; a create request refused for a field names that field; no
 * certificate name changes the upstream path; a query parameter a function does not take, or
 * one given twice, is refused naming it before any work; a body that is not UTF-8 is refused
 * before anything is sent; no log line carries a raw control character. And the create schema
 * never accepts what the service would refuse.
 *
 * Seeded: the seed is printed; CERTSCHED_FUZZ_SEED=<seed> replays a run.
 */

const SEED = process.env.CERTSCHED_FUZZ_SEED
  ? Number(process.env.CERTSCHED_FUZZ_SEED)
  : randomInt(1, 2 ** 31);
/** Generous: the slowest property runs 10,000 calls through the simulator. */
const LONG = { timeout: 180_000 };
/** The least number of generated inputs each HTTP function must see. */
const PER_FUNCTION = 10_000;

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

const inputs = new Map<string, number>();
const statuses = new Map<string, Record<string, number>>();
let upstreamCalls = 0;
let pathChanges = 0;
let serverErrors = 0;
let schemaAccepted = 0;
const capture = new Capture();
const started = performance.now();

process.stdout.write(
  `certsched fuzz: seed ${SEED} (replay: CERTSCHED_FUZZ_SEED=${SEED} npx vitest run test/reliability/fuzz.test.ts)\n`,
);

function params(numRuns: number): fc.Parameters<unknown> {
  return { numRuns: propertyRuns(numRuns), seed: SEED, endOnFailure: true };
}

/** Runs a handler as the host would, checks the invariants every answer must keep. */
async function call(handler: Handler, request: HttpRequest): Promise<Reply> {
  const name = handler.name;
  inputs.set(name, (inputs.get(name) ?? 0) + 1);
  const logged = capture.seen.length;
  const reply = toReply(await handler(request, capture.context(name)));
  // Every log line is escaped: nothing a caller or upstream sends can start a line of its own.
  for (const seen of capture.seen.slice(logged)) {
    if (seen.where.startsWith("log:")) expect(seen.text).not.toMatch(RAW_CONTROL);
  }
  capture.add("response", reply.text);
  const byStatus = statuses.get(name) ?? {};
  byStatus[reply.status] = (byStatus[reply.status] ?? 0) + 1;
  statuses.set(name, byStatus);
  if (reply.status >= 500) serverErrors += 1;
  expect(reply.status, reply.text).toBeLessThan(500);
  if (reply.status >= 400) {
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    const problem = reply.body as Record<string, unknown>;
    expect(problem.status).toBe(reply.status);
    expect(problem.code).toEqual(expect.any(String));
    expect(problem.title).toEqual(expect.any(String));
    expect(problem.detail).toEqual(expect.any(String));
    expect(reply.text).not.toMatch(/\n\s+at /);
  } else {
    expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  }
  return reply;
}

/** C0, DEL, C1, line/paragraph separators and bidi controls: never raw in a log line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The function key's parameter: every function allows it (the host may leave it in the URL). */
const FUNCTION_KEY = "code";

/**
 * The query parameters a strict function must refuse, raw, in the order first given: those it
 * does not take (besides `code`) and those given more than once. Read from the raw URL, as a
 * caller wrote it.
 */
function refusedParameters(request: HttpRequest, takes: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const [name] of new URL(request.url).searchParams) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts]
    .filter(([name, n]) => n > 1 || (name !== FUNCTION_KEY && !takes.includes(name)))
    .map(([name]) => name);
}

/**
 * A 400 naming exactly the refused parameters, one problem each, in order. A plain name (short,
 * printable, no "=") is quoted as given; any other is quoted shortened or escaped, never with
 * what follows an "=" (it arrived as %3D: a value, maybe the function key).
 */
function expectQueryRefused(reply: Reply, refused: readonly string[]): void {
  expect(reply.status, reply.text).toBe(400);
  expectNamedErrors(reply);
  const names = errorNames(reply);
  expect(names).toHaveLength(refused.length);
  refused.forEach((raw, i) => {
    const name = names[i] ?? "";
    if (/^[\x21-\x7e]{1,64}$/.test(raw) && !raw.includes("=")) expect(name).toBe(raw);
    else {
      expect(name).not.toMatch(RAW_CONTROL);
      // What follows the "=" never comes back (the name is cut there).
      const value = raw.slice(raw.indexOf("="));
      if (raw.includes("=") && value !== "=") expect(name).not.toContain(value);
    }
  });
}

function errorNames(reply: Reply): string[] {
  const errors = (reply.body as { errors?: { name: string }[] }).errors ?? [];
  return errors.map((e) => e.name);
}

/** Each problem in a 400 names a field (or the body) and the rule it broke. */
function expectNamedErrors(reply: Reply): void {
  const errors = (reply.body as { errors?: unknown[] }).errors;
  expect(errors, reply.text).toBeInstanceOf(Array);
  expect(errors?.length).toBeGreaterThan(0);
  for (const e of errors ?? []) {
    expect(e).toEqual({ name: expect.any(String), message: expect.any(String) });
  }
}

let sim: Simulator;

beforeAll(async () => {
  const now = Date.now();
  sim = await startSim({
    certificates: [
      { certificateName: "www-contoso-com", expiryDate: new Date(now + 5 * DAY_MS) },
      { certificateName: "a/b", expiryDate: new Date(now + 9 * DAY_MS) },
      { certificateName: "..", expiryDate: new Date(now + 90 * DAY_MS) },
      { certificateName: "%2F..%2Fcreate", expiryDate: new Date(now + 90 * DAY_MS) },
      { certificateName: "x?y=1#z", expiryDate: new Date(now + 90 * DAY_MS) },
    ],
  });
  capture.watch(sim);
  await configureApp(settingsFor(sim), { ledger: memoryLedger() });
});

afterAll(async () => {
  await releaseApp();
  await sim.close();
  const leaks = capture.leaks();
  reportTally("fuzz", {
    seed: SEED,
    inputs: Object.fromEntries(inputs),
    totalInputs: [...inputs.values()].reduce((a, b) => a + b, 0),
    statuses: Object.fromEntries(statuses),
    serverErrors,
    upstreamCalls,
    pathChanges,
    schemaAcceptedSentToService: schemaAccepted,
    textsScanned: capture.seen.length,
    leaks: leaks.length,
    wallMs: Math.round(performance.now() - started),
  });
  expect(leaks).toEqual([]);
});

/** JSON content types that declare a charset, UTF-8 or not (JSON is UTF-8: RFC 8259 8.1). */
const declaredCharset = fc.constantFrom(
  "application/json; charset=iso-8859-1",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/json; charset=us-ascii",
  'application/json; charset="UTF-8"',
  "application/json;charset=utf8",
);

/** Hand-picked queries besides the generated ones: misspelt, encoded, repeated and valid. */
const strictQuery = fc.oneof(
  rawQuery,
  fc.constantFrom(
    "dryrun=true",
    "DryRun=true",
    "dry_run=true",
    "dryRun%3Dtrue",
    "dryRun=false&dryRun=true",
    "code=k&code=k",
    "code%3Dk",
    "code=k&dryRun=true",
    "code=k",
  ),
);

/** A sequence no UTF-8 decoder may accept, whatever surrounds it (none is a valid prefix). */
const invalidUtf8 = fc.oneof(
  fc.constantFrom(
    [0x80],
    [0xbf],
    [0xc0, 0xaf],
    [0xc1, 0xbf],
    [0xe0, 0x80, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0xfe],
    [0xff],
  ),
  // A lead byte whose sequence is cut short by an ASCII byte.
  fc
    .tuple(fc.integer({ min: 0xc2, max: 0xf4 }), fc.integer({ min: 0x20, max: 0x7e }))
    .map(([lead, ascii]) => [lead, ascii]),
);

/** An HttpRequest whose body is these exact bytes, as the host hands them over. */
function bytesRequest(bytes: Uint8Array, type = "application/json"): HttpRequest {
  return new HttpRequest({
    method: "POST",
    url: "http://localhost:7071/api/certificates",
    headers: { "content-type": type },
    params: {},
    body: { bytes },
  });
}

describe("createCertificate", () => {
  const post = (body: string | undefined, type: string | undefined = "application/json") =>
    call(
      createCertificate,
      httpRequest({
        path: "certificates",
        headers: type === undefined ? {} : { "content-type": type },
        ...(body === undefined ? {} : { body }),
      }),
    );

  it("names the field it refuses, for every mutation of a valid request", LONG, async () => {
    await fc.assert(
      fc.asyncProperty(mutatedCreate, async ({ body, mutation }) => {
        const text = JSON.stringify(applyMutation(body, mutation));
        const reply = await post(text);
        const tooLarge = Buffer.byteLength(text) > 64 * 1024;
        if (tooLarge) {
          expect(reply.status).toBe(413);
          return;
        }
        switch (mutation.kind) {
          case "none":
            expect(reply.status, reply.text).toBe(202);
            upstreamCalls += 1;
            break;
          case "delete":
          case "wrongType":
          case "huge":
          case "extra":
            expect(reply.status, reply.text).toBe(400);
            expectNamedErrors(reply);
            expect(errorNames(reply)).toContain(mutation.field);
            break;
          case "unicode":
            // Often still valid; when refused, by the field's own rules.
            expect([202, 400]).toContain(reply.status);
            if (reply.status === 400) {
              expectNamedErrors(reply);
              expect(errorNames(reply)).toContain(
                // A different slot breaks the site/slot naming, reported on the app name.
                mutation.field === "cloudAppServiceSlotName"
                  ? errorNames(reply).includes(mutation.field)
                    ? mutation.field
                    : "cloudAppServiceName"
                  : mutation.field,
              );
            } else upstreamCalls += 1;
        }
      }),
      params(6_000),
    );
  });

  it("refuses any JSON value that is not a valid request, naming fields", async () => {
    await fc.assert(
      fc.asyncProperty(anyJson, async (value) => {
        const reply = await post(JSON.stringify(value));
        expect([400, 413]).toContain(reply.status);
        if (reply.status === 400) expectNamedErrors(reply);
      }),
      params(2_000),
    );
  });

  it("refuses text that is not JSON, naming the body", async () => {
    const notJson = fc
      .oneof(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.constantFrom("{", "[", '{"a":', "{'a':1}", "NaN", "undefined", "\u0000", "{}}"),
        validCreate.map((b) => JSON.stringify(b).slice(0, -1)),
      )
      .filter((s) => {
        try {
          JSON.parse(s);
          return false;
        } catch {
          return true;
        }
      });
    await fc.assert(
      fc.asyncProperty(notJson, async (body) => {
        const reply = await post(body);
        expect(reply.status).toBe(400);
        expect(errorNames(reply)).toEqual(["(body)"]);
      }),
      params(1_000),
    );
  });

  it("answers odd content types with 415 and JSON ones as JSON", async () => {
    await fc.assert(
      fc.asyncProperty(validCreate, fc.oneof(contentType, declaredCharset), async (body, type) => {
        const reply = await post(JSON.stringify(body), type);
        const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type ?? "")?.[1];
        const json =
          type === undefined ||
          (/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type) &&
            (charset === undefined || /^utf-?8$/i.test(charset)));
        if (json) {
          expect(reply.status, `${type}: ${reply.text}`).toBe(202);
          upstreamCalls += 1;
        } else {
          expect(reply.status, `${type}: ${reply.text}`).toBe(415);
        }
      }),
      params(700),
    );
  });

  it("survives deep nesting and raw bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1, max: 40_000 }).map(nestedText),
          fc.integer({ min: 1, max: 30_000 }).map((d) => `{"certificateName":${nestedText(d)}}`),
          fc.integer({ min: 1, max: 1_000 }).map((d) => JSON.stringify({ email: nested(d) })),
          fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
        ),
        async (body) => {
          const reply = await post(body);
          expect([400, 413]).toContain(reply.status);
        },
      ),
      params(300),
    );
  });

  it("refuses a body that is not UTF-8, sending nothing upstream", LONG, async () => {
    await fc.assert(
      fc.asyncProperty(
        validCreate,
        invalidUtf8,
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (body, bad, at) => {
          const text = Buffer.from(JSON.stringify(body));
          const cut = Math.floor(at * text.length);
          const bytes = Buffer.concat([
            text.subarray(0, cut),
            Buffer.from(bad),
            text.subarray(cut),
          ]);
          fc.pre(!isUtf8(bytes));
          const before = sim.requests.length;

          const reply = await call(createCertificate, bytesRequest(bytes));

          expect(reply.status, reply.text).toBe(400);
          expect((reply.body as { errors: unknown }).errors).toEqual([
            { name: "(body)", message: expect.stringMatching(/^is not valid UTF-8 /) },
          ]);
          expect(reply.text).not.toContain("\ufffd");
          expect(sim.requests.length).toBe(before);
        },
      ),
      params(2_000),
    );
  });

  it("answers raw bytes by their UTF-8 validity", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        const before = sim.requests.length;

        const reply = await call(createCertificate, bytesRequest(bytes));

        // Random bytes are never a valid create request; what differs is the reason.
        expect(reply.status, reply.text).toBe(400);
        const utf8Refusal =
          errorNames(reply).includes("(body)") && reply.text.includes("is not valid UTF-8");
        expect(utf8Refusal).toBe(!isUtf8(bytes));
        expect(sim.requests.length).toBe(before);
      }),
      params(1_000),
    );
  });

  it("refuses any query parameter but code, before reading the body", async () => {
    await fc.assert(
      fc.asyncProperty(strictQuery, validCreate, async (query, body) => {
        const request = httpRequest({
          path: "certificates",
          rawQuery: query,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const refused = refusedParameters(request, []);
        const before = sim.requestsFor("create").length;

        const reply = await call(createCertificate, request);

        if (refused.length > 0) {
          expectQueryRefused(reply, refused);
          expect(sim.requestsFor("create").length).toBe(before);
        } else {
          expect(reply.status, reply.text).toBe(202);
          upstreamCalls += 1;
        }
      }),
      params(1_000),
    );
  });

  it("sends nothing upstream for an empty body", async () => {
    const before = sim.requests.length;
    const reply = await post(undefined);
    expect(reply.status).toBe(400);
    expect(errorNames(reply)).toEqual(["(body)"]);
    expect(sim.requests.length).toBe(before);
  });
});

describe("renewCertificate", () => {
  const v3RenewPath = () =>
    `/prod/v3/ssl/certificate/subscription/${encodeURIComponent(sim.options.subscription)}/schedule/renew`;
  /** Names Get Certificate refuses to put in a path: dot segments, lone surrogates. */
  const pathless = (name: string) => {
    if (name === "." || name === "..") return true;
    try {
      encodeURIComponent(name);
      return false;
    } catch {
      return true;
    }
  };
  const v3GetPath = (name: string) =>
    `/prod/v3/ssl/certificate/subscription/${encodeURIComponent(sim.options.subscription)}/get/certificatename/${encodeURIComponent(name)}`;
  const adversarial = fc
    .array(
      fc.oneof(
        fc.constantFrom("/", "..", "%2F", "%2f", "?", "#", "%3F", "%23", ".", "%2E%2E", "\\", " "),
        fc.constantFrom("create", "prod", "v3", "schedule", "renew", "public", "identity"),
        fc.string({ unit: "grapheme", maxLength: 6 }),
      ),
      { minLength: 1, maxLength: 10 },
    )
    .map((parts) => parts.join(""));
  const names = fc.oneof(
    adversarial,
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.string({ unit: "grapheme", minLength: 1_000, maxLength: 1_100 }),
    fc.constantFrom("www-contoso-com", "a/b", "..", "%2F..%2Fcreate", "x?y=1#z", "", " "),
  );

  it(
    "sends exactly the v3 renew path, the name only in the body, whatever the name",
    LONG,
    async () => {
      await fc.assert(
        fc.asyncProperty(names, method, async (name, verb) => {
          sim.reset();
          const reply = await call(
            renewCertificate,
            httpRequest({ method: verb, path: "certificates/x/renew", params: { name } }),
          );
          const sent = sim.requests;
          if (reply.status === 400) {
            expect(errorNames(reply)).toEqual(["name"]);
            expect(sent).toHaveLength(0);
            return;
          }
          upstreamCalls += sent.length;
          expect([202, 422]).toContain(reply.status);
          // The target is looked up first (Get Certificate), the name in its one path segment;
          // a name no URL path can carry is not looked up, and is renewed all the same.
          const lookups = sent.filter((r) => r.operation === "get");
          for (const lookup of lookups) {
            if (lookup.path !== v3GetPath(name) || lookup.query !== "") pathChanges += 1;
            expect(lookup.path).toBe(v3GetPath(name));
            expect(lookup.query).toBe("");
          }
          expect(lookups).toHaveLength(pathless(name) ? 0 : 1);
          // Token requests are the identity provider's, not the service's (cached after the first).
          const renews = sent.filter((r) => r.operation !== "get" && r.operation !== "token");
          expect(renews.map((r) => r.operation)).toEqual(["renew"]);
          const [request] = renews;
          if (request?.path !== v3RenewPath() || request.query !== "") pathChanges += 1;
          expect(request?.path).toBe(v3RenewPath());
          expect(request?.query).toBe("");
          expect(JSON.parse(request?.body ?? "{}").certificateName).toBe(name);
          if (reply.status === 202) {
            expect((reply.body as { certificateName: string }).certificateName).toBe(name);
          }
        }),
        params(10_000),
      );
    },
  );

  it("refuses any query parameter but code, without calling upstream", async () => {
    await fc.assert(
      fc.asyncProperty(strictQuery, async (query) => {
        sim.reset();
        const request = httpRequest({
          path: "certificates/www-contoso-com/renew",
          rawQuery: query,
          params: { name: "www-contoso-com" },
        });
        const refused = refusedParameters(request, []);

        const reply = await call(renewCertificate, request);

        if (refused.length > 0) {
          expectQueryRefused(reply, refused);
          expect(sim.requests).toHaveLength(0);
        } else {
          expect(reply.status, reply.text).toBe(202);
          upstreamCalls += 1;
        }
      }),
      params(1_000),
    );
  });

  it("refuses a missing route parameter without calling upstream", async () => {
    sim.reset();
    const reply = await call(renewCertificate, httpRequest({ path: "certificates//renew" }));
    expect(reply.status).toBe(400);
    expect(errorNames(reply)).toEqual(["name"]);
    expect(sim.requests).toHaveLength(0);
  });
});

describe("requests without a body", () => {
  const requestArb = fc.record({ verb: method, query: strictQuery, headers });

  it.for([
    { handler: listDueCertificates, path: "certificates/due" },
    { handler: testConnectivity, path: "connectivity" },
  ])(
    "$handler.name refuses any query parameter but code, whatever the method and headers",
    LONG,
    async ({ handler, path }) => {
      const seen = { accepted: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(requestArb, fc.option(fc.string({ maxLength: 200 })), async (r, body) => {
          const request = httpRequest({
            method: r.verb,
            path,
            rawQuery: r.query,
            headers: r.headers,
            ...(body === null || !takesBody(r.verb) ? {} : { body }),
          });
          const refused = refusedParameters(request, []);
          const calls = sim.requests.length;

          const reply = await call(handler, request);

          if (refused.length > 0) {
            expectQueryRefused(reply, refused);
            expect(sim.requests.length).toBe(calls);
            seen.refused += 1;
          } else {
            expect(reply.status, reply.text).toBe(200);
            upstreamCalls += 1;
            seen.accepted += 1;
          }
          if (sim.requests.length > 1_000) sim.reset();
        }),
        params(PER_FUNCTION),
      );
      // Both branches ran: the property cannot pass by never reaching one of them.
      expect(seen.accepted).toBeGreaterThan(0);
      expect(seen.refused).toBeGreaterThan(0);
    },
  );

  it(
    "runRenewals refuses unknown or repeated parameters and any dryRun but true or false, before sweeping",
    LONG,
    async () => {
      const seen = { swept: 0, refusedQuery: 0, refusedValue: 0 };
      await fc.assert(
        fc.asyncProperty(requestArb, async (r) => {
          const request = httpRequest({
            method: r.verb,
            path: "renewals",
            rawQuery: r.query,
            headers: r.headers,
          });
          const refused = refusedParameters(request, ["dryRun", "wait"]);
          const dryRun = new URL(request.url).searchParams.get("dryRun");
          const calls = sim.requests.length;

          const reply = await call(runRenewals, request);

          if (refused.length > 0) {
            expectQueryRefused(reply, refused);
            expect(sim.requests.length).toBe(calls);
            seen.refusedQuery += 1;
          } else if (dryRun === null || dryRun === "true" || dryRun === "false") {
            // Queued (docs/runs.md); without storage it is swept in this process: let it end.
            expect(reply.status, reply.text).toBe(202);
            expect((reply.body as { dryRun: boolean }).dryRun).toBe(dryRun === "true");
            await getAccountPorts().runs.settled();
            upstreamCalls += sim.requests.length - calls;
            seen.swept += 1;
          } else {
            expect(reply.status).toBe(400);
            expect(errorNames(reply)).toEqual(["dryRun"]);
            expect(sim.requests.length).toBe(calls);
            seen.refusedValue += 1;
          }
          if (sim.requests.length > 1_000) sim.reset();
        }),
        params(PER_FUNCTION),
      );
      expect(seen.swept).toBeGreaterThan(0);
      expect(seen.refusedQuery).toBeGreaterThan(0);
      expect(seen.refusedValue).toBeGreaterThan(0);
    },
  );
});

describe("the create schema against the service", () => {
  it("never accepts a request the service refuses (three field-set cases)", async () => {
    const runtime = createAccountPorts(loadSettings(settingsFor(sim)));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            validCreate,
            mutatedCreate
              .filter(({ mutation }) => mutation.kind === "unicode" || mutation.kind === "none")
              .map(({ body, mutation }) => applyMutation(body, mutation)),
          ),
          async (input) => {
            const parsed = createCertificateInput.safeParse(input);
            fc.pre(parsed.success);
            if (!parsed.success) return;
            schemaAccepted += 1;
            // Tokens injected by the client; the simulator checks every field set of 2.1.
            const message = await runtime.client.create(parsed.data);
            capture.add("response", message);
            expect(message).toMatch(/is scheduled for creation/);
          },
        ),
        params(400),
      );
    } finally {
      await runtime.close();
    }
  });
});

describe("the floor", () => {
  it(`ran at least ${PER_FUNCTION} inputs through each HTTP function`, () => {
    for (const fn of [
      "createCertificate",
      "renewCertificate",
      "listDueCertificates",
      "testConnectivity",
      "runRenewals",
    ]) {
      expect(inputs.get(fn) ?? 0, fn).toBeGreaterThanOrEqual(PER_FUNCTION);
    }
    expect(serverErrors).toBe(0);
    expect(pathChanges).toBe(0);
  });
});
