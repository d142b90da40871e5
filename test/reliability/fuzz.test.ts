import { randomInt } from "node:crypto";
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../functions/createCertificate.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { testConnectivity } from "../../functions/testConnectivity.js";
import { memoryLedger } from "../../shared/ledger/ledger.js";
import { createRuntime } from "../../shared/runtime.js";
import { createCertificateInput } from "../../shared/schemas/index.js";
import { loadSettings } from "../../shared/settings.js";
import type { Simulator } from "../../sim/index.js";
import {
  configureApp,
  DAY_MS,
  httpRequest,
  type Reply,
  releaseApp,
  settingsFor,
  startSim,
  toReply,
} from "./support/app.js";
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
import { reportTally } from "./support/tally.js";

/*
 * Fuzz: at least 10,000 generated inputs per HTTP function, through the exported handlers with
 * the runtime pointed at the simulator. Whatever arrives: never a 5xx; every 4xx is
 * application/problem+json; a create request refused for a field names that field; no
 * certificate name changes the upstream path. And the create schema never accepts what the
 * service would refuse.
 *
 * Seeded: the seed is printed; CERTSCHED_FUZZ_SEED=<seed> replays a run.
 */

const SEED = process.env.CERTSCHED_FUZZ_SEED
  ? Number(process.env.CERTSCHED_FUZZ_SEED)
  : randomInt(1, 2 ** 31);
/** Generous: the slowest property runs 10,000 calls through the simulator. */
const LONG = { timeout: 180_000 };
/** The floor the issue sets per HTTP function. */
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
  return { numRuns, seed: SEED, endOnFailure: true };
}

/** Runs a handler as the host would, checks the invariants every answer must keep. */
async function call(handler: Handler, request: HttpRequest): Promise<Reply> {
  const name = handler.name;
  inputs.set(name, (inputs.get(name) ?? 0) + 1);
  const reply = toReply(await handler(request, capture.context(name)));
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
      fc.asyncProperty(validCreate, contentType, async (body, type) => {
        const reply = await post(JSON.stringify(body), type);
        const json =
          type === undefined || /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type);
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
          expect(sent.map((r) => r.operation)).toEqual(["renew"]);
          const [request] = sent;
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

  it("refuses a missing route parameter without calling upstream", async () => {
    sim.reset();
    const reply = await call(renewCertificate, httpRequest({ path: "certificates//renew" }));
    expect(reply.status).toBe(400);
    expect(errorNames(reply)).toEqual(["name"]);
    expect(sim.requests).toHaveLength(0);
  });
});

describe("requests without a body", () => {
  const requestArb = fc.record({ verb: method, query: rawQuery, headers });

  it.for([
    { handler: listDueCertificates, path: "certificates/due" },
    { handler: testConnectivity, path: "connectivity" },
  ])("$handler.name ignores odd methods, queries and headers", LONG, async ({ handler, path }) => {
    await fc.assert(
      fc.asyncProperty(requestArb, fc.option(fc.string({ maxLength: 200 })), async (r, body) => {
        const reply = await call(
          handler,
          httpRequest({
            method: r.verb,
            path,
            rawQuery: r.query,
            headers: r.headers,
            ...(body === null || !takesBody(r.verb) ? {} : { body }),
          }),
        );
        expect(reply.status, reply.text).toBe(200);
        upstreamCalls += 1;
      }),
      params(PER_FUNCTION),
    );
  });

  it(
    "runRenewals refuses any dryRun but true or false, naming it, before sweeping",
    LONG,
    async () => {
      await fc.assert(
        fc.asyncProperty(requestArb, async (r) => {
          const request = httpRequest({
            method: r.verb,
            path: "renewals",
            rawQuery: r.query,
            headers: r.headers,
          });
          const dryRun = request.query.get("dryRun");
          const calls = sim.requests.length;
          const reply = await call(runRenewals, request);
          if (dryRun === null || dryRun === "true" || dryRun === "false") {
            expect(reply.status, reply.text).toBe(200);
            upstreamCalls += sim.requests.length - calls;
          } else {
            expect(reply.status).toBe(400);
            expect(errorNames(reply)).toEqual(["dryRun"]);
            expect(sim.requests.length).toBe(calls);
          }
          if (sim.requests.length > 1_000) sim.reset();
        }),
        params(PER_FUNCTION),
      );
    },
  );
});

describe("the create schema against the service", () => {
  it("never accepts a request the service refuses (three field-set cases)", async () => {
    const runtime = createRuntime(loadSettings(settingsFor(sim)));
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
