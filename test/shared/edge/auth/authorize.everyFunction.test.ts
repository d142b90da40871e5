import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acknowledgeIssuance } from "../../../../functions/acknowledgeIssuance.js";
import { createCertificate } from "../../../../functions/createCertificate.js";
import { dashboard } from "../../../../functions/dashboard.js";
import { getCertificate } from "../../../../functions/getCertificate.js";
import { getEstate } from "../../../../functions/getEstate.js";
import { getPreflight } from "../../../../functions/getPreflight.js";
import { getRenewalRun } from "../../../../functions/getRenewalRun.js";
import { getVerifications } from "../../../../functions/getVerifications.js";
import { listCertificates } from "../../../../functions/listCertificates.js";
import { listDueCertificates } from "../../../../functions/listDueCertificates.js";
import { listIssuances } from "../../../../functions/listIssuances.js";
import { renewCertificate } from "../../../../functions/renewCertificate.js";
import { runPreflight } from "../../../../functions/runPreflight.js";
import { runRenewals } from "../../../../functions/runRenewals.js";
import { runVerifications } from "../../../../functions/runVerifications.js";
import { testConnectivity } from "../../../../functions/testConnectivity.js";
import { type AppRole, OPERATOR, READER } from "../../../../shared/edge/auth/roles.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { type AppHarness, type Reply, STACK_FRAME, startHarness } from "../../../support/app.js";
import { validCreateInputs } from "../../../support/createBodies.js";
import { httpRequest } from "../../../support/invoke.js";
import { invalidUtf8Principal, principalHeader } from "../../../support/principals.js";

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

interface Endpoint {
  readonly handler: Handler;
  /** The app role an Entra ID caller needs for this function. */
  readonly role: AppRole;
  /** What a permitted caller gets from the simulator. */
  readonly ok: number;
  readonly request: (headers: Record<string, string>) => HttpRequest;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

let app: AppHarness;
let certificateName: string;

const ENDPOINTS: Record<string, Endpoint> = {
  dashboard: {
    handler: dashboard,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "dashboard", headers }),
  },
  listCertificates: {
    handler: listCertificates,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "certificates", headers }),
  },
  listDueCertificates: {
    handler: listDueCertificates,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "certificates/due", headers }),
  },
  getCertificate: {
    handler: getCertificate,
    role: READER,
    ok: 200,
    request: (headers) =>
      httpRequest({
        method: "GET",
        path: `certificates/${certificateName}`,
        params: { name: certificateName },
        headers,
      }),
  },
  testConnectivity: {
    handler: testConnectivity,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "connectivity", headers }),
  },
  createCertificate: {
    handler: createCertificate,
    role: OPERATOR,
    ok: 202,
    request: (headers) =>
      httpRequest({ path: "certificates", json: validCreateInputs().appServiceHttp, headers }),
  },
  renewCertificate: {
    handler: renewCertificate,
    role: OPERATOR,
    ok: 202,
    request: (headers) =>
      httpRequest({
        path: `certificates/${certificateName}/renew`,
        params: { name: certificateName },
        headers,
      }),
  },
  runRenewals: {
    handler: runRenewals,
    role: OPERATOR,
    ok: 200,
    // ?wait: answered once the queued run has finished in this process (no storage here).
    request: (headers) =>
      httpRequest({ path: "renewals", query: { dryRun: "true", wait: "30" }, headers }),
  },
  getRenewalRun: {
    handler: getRenewalRun,
    role: READER,
    // Past the guard: no run has this id (a permitted caller is told so; a refused one gets 403).
    ok: 404,
    request: (headers) =>
      httpRequest({
        method: "GET",
        path: "renewals/00000000-0000-4000-8000-000000000000",
        params: { runId: "00000000-0000-4000-8000-000000000000" },
        headers,
      }),
  },
  getVerifications: {
    handler: getVerifications,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "verifications", headers }),
  },
  runVerifications: {
    handler: runVerifications,
    role: OPERATOR,
    ok: 200,
    request: (headers) => httpRequest({ path: "verifications", headers }),
  },
  getPreflight: {
    handler: getPreflight,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "preflight", headers }),
  },
  runPreflight: {
    handler: runPreflight,
    role: OPERATOR,
    // Past the guard: a name no certificate has is checked (none) and reported not found; the
    // checks themselves, and the probes under them, are not this suite's.
    ok: 200,
    request: (headers) =>
      httpRequest({ path: "preflight", query: { certificate: "no-such-certificate" }, headers }),
  },
  listIssuances: {
    handler: listIssuances,
    role: READER,
    ok: 200,
    request: (headers) => httpRequest({ method: "GET", path: "issuances", headers }),
  },
  getEstate: {
    handler: getEstate,
    role: READER,
    // Past the guard: the query is checked (an expiring of 0 days is refused with a 400) before
    // anything is discovered; discovery itself is not this suite's.
    ok: 400,
    request: (headers) =>
      httpRequest({ method: "GET", path: "estate", query: { expiring: "0" }, headers }),
  },
  acknowledgeIssuance: {
    handler: acknowledgeIssuance,
    role: OPERATOR,
    // Past the guard: no issuance has this id (a permitted caller is told so; a refused one gets 403).
    ok: 404,
    request: (headers) =>
      httpRequest({
        path: "issuances/123/ack",
        params: { id: "123" },
        json: { reason: "ours: the web team's certificate" },
        headers,
      }),
  },
};
const CASES = Object.entries(ENDPOINTS);

const principal = (roles: readonly string[]) => ({
  "x-ms-client-principal": principalHeader({ name: "ada@contoso.com", roles }),
});

const savedAuthSetting = process.env.WEBSITE_AUTH_ENABLED;
function easyAuth(on: boolean): void {
  if (on) process.env.WEBSITE_AUTH_ENABLED = "True";
  else delete process.env.WEBSITE_AUTH_ENABLED;
}

beforeAll(async () => {
  certificateName = "www-contoso-com";
  app = await startHarness({
    certificates: [{ certificateName, expiryDate: new Date(Date.now() + 5 * DAY_MS) }],
  });
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
  easyAuth(true);
});
afterEach(() => {
  if (savedAuthSetting === undefined) delete process.env.WEBSITE_AUTH_ENABLED;
  else process.env.WEBSITE_AUTH_ENABLED = savedAuthSetting;
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function call(endpoint: Endpoint, headers: Record<string, string> = {}): Promise<Reply> {
  return app.call(endpoint.handler, endpoint.request(headers));
}

/** A refused call: problem+json with the status, and nothing reached the service. */
function expectRefused(reply: Reply, status: number): Record<string, unknown> {
  expect(reply.status).toBe(status);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  expect(reply.text).not.toMatch(STACK_FRAME);
  expect(app.sim.requests).toEqual([]);
  return reply.body as Record<string, unknown>;
}

describe("every HTTP function", () => {
  it("is guarded and tested here (a new one needs its role and its case in ENDPOINTS)", () => {
    const dir = join(repoRoot, "functions");
    const registered: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
      const source = readFileSync(join(dir, f), "utf8");
      // The registration is thin; the work (and its guard) loads from functions/handlers/.
      const work = readFileSync(join(dir, "handlers", f), "utf8");
      for (const m of source.matchAll(/app\.http\(\s*"([^"]+)"/g)) {
        registered.push(m[1] as string);
        // The guard reads Easy Auth's switch from the platform's environment (app/config).
        expect(work, f).toMatch(
          /\n {4}authorize\(request, (READER|OPERATOR), (platformEnv\(\)|platform)\);\n/,
        );
      }
    }
    expect(registered.sort()).toEqual(Object.keys(ENDPOINTS).sort());
  });
});

describe.each(CASES)("%s behind Easy Auth", (_, endpoint) => {
  it("serves a function-key caller (no principal) as before", async () => {
    expect((await call(endpoint)).status).toBe(endpoint.ok);
  });

  it(`serves a caller with ${endpoint.role}`, async () => {
    expect((await call(endpoint, principal([endpoint.role]))).status).toBe(endpoint.ok);
  });

  it("serves a caller with certsched.Operator (Operator includes Reader)", async () => {
    expect((await call(endpoint, principal([OPERATOR]))).status).toBe(endpoint.ok);
  });

  it("answers 403 naming the role to a caller without any certsched role", async () => {
    const body = expectRefused(await call(endpoint, principal(["other.App.Role"])), 403);
    expect(body).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
      errors: [{ name: "role", message: `${endpoint.role} required` }],
    });
    expect(body.detail).toContain(endpoint.role);
    const refusal = app.logs.at(-1);
    expect(refusal?.level).toBe("warning");
    expect(refusal?.message).toContain(`${endpoint.role} is required`);
  });

  it("answers 400 (never 500) to a malformed principal", async () => {
    const body = expectRefused(await call(endpoint, { "x-ms-client-principal": "e30" }), 400);
    expect(body).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ name: "x-ms-client-principal", message: expect.any(String) }],
    });
  });

  it("answers 400 to a principal that is not valid UTF-8, never reads it with U+FFFD", async () => {
    // An operator's principal but for one 0xFF byte in its name: decoded leniently, it passed.
    const body = expectRefused(
      await call(endpoint, { "x-ms-client-principal": invalidUtf8Principal() }),
      400,
    );
    expect(body).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ name: "x-ms-client-principal", message: "must be base64-encoded UTF-8 JSON" }],
    });
  });
});

describe.each(CASES.filter(([, e]) => e.role === OPERATOR))("%s", (_, endpoint) => {
  it("answers 403 to a certsched.Reader: it changes things", async () => {
    const body = expectRefused(await call(endpoint, principal([READER])), 403);
    expect(body.detail).toContain("certsched.Operator is required");
    expect(body.detail).toContain("ada@contoso.com");
  });
});

describe.each(CASES)("%s without Easy Auth", (_, endpoint) => {
  it("ignores a principal header: only the platform may set it", async () => {
    easyAuth(false);
    // A principal with no role would be refused behind Easy Auth; here it proves nothing.
    expect((await call(endpoint, principal([]))).status).toBe(endpoint.ok);
    expect((await call(endpoint, { "x-ms-client-principal": "not base64!" })).status).toBe(
      endpoint.ok,
    );
  });
});
