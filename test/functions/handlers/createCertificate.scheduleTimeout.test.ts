import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createCertificate } from "../../../functions/createCertificate.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { formatServiceDate, toCertificateRecord } from "../../../sim/index.js";
import { type AppHarness, type Reply, startHarness } from "../../support/app.js";
import { validCreateInputs } from "../../support/createBodies.js";
import { httpRequest } from "../../support/invoke.js";

/**
 * v3 create and renew wait CERTSCHED_SCHEDULE_TIMEOUT, not CERTSCHED_HTTP_TIMEOUT, and a call
 * that got no answer by then is confirmed with Get Certificate or answered "unknown",
 * on the wire against the simulator.
 *
 * Two delay faults stand for the two ways a late service looks to certsched: `delayMs` holds the
 * request before the simulator handles it (nothing is scheduled while certsched waits: Get
 * cannot confirm it), `dripMs` handles it at once and answers a byte at a time (it was scheduled,
 * the answer comes too late: Get confirms it).
 */

const INPUT = { ...validCreateInputs().appServiceHttp, certificateName: "late-create" };
/** Short enough for a test, far shorter than each fault's delay. */
const SHORT = "300ms";

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      { certificateName: "existing", expiryDate: new Date(Date.now() + 5 * DAY_MS) },
      { certificateName: "due-soon", expiryDate: new Date(Date.now() + 3 * DAY_MS) },
    ],
  });
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure({ CERTSCHED_SCHEDULE_TIMEOUT: SHORT });
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

const create = (input: Record<string, unknown> = INPUT): Promise<Reply> =>
  app.call(createCertificate, httpRequest({ path: "certificates", json: input }));
const renew = (name: string): Promise<Reply> =>
  app.call(
    renewCertificate,
    httpRequest({ path: `certificates/${encodeURIComponent(name)}/renew`, params: { name } }),
  );

/** The problem document of a 504 that says the outcome is unknown and how to find out. */
function unknownProblem(reply: Reply, name: string): { code: string; detail: string } {
  expect(reply.status).toBe(504);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  const problem = reply.body as { code: string; detail: string };
  expect(problem.code).toBe("UPSTREAM_TIMEOUT");
  expect(problem.detail).toContain(`unknown: check with certsched get ${name}`);
  // Never "try again": a second create or renew could order a second certificate.
  expect(problem.detail).not.toMatch(/again|re-?create|retry/i);
  return problem;
}

describe("create: CERTSCHED_SCHEDULE_TIMEOUT", () => {
  it("a create that timed out but took effect is confirmed by Get Certificate and reported scheduled", async () => {
    app.sim.inject("create", { dripMs: 200 });

    const reply = await create();

    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      status: "scheduled",
      certificateName: "late-create",
      account: "default",
      message: expect.stringMatching(
        /^the service did not answer in time, but Get Certificate shows late-create issued \S+Z \(id \d+, Cloud App Service\): its creation was scheduled$/,
      ),
      confirmedBy: "get-certificate",
    });
    // Sent once (never repeated after a timeout), then looked up once.
    expect(app.sim.requestsFor("create")).toHaveLength(1);
    const gets = app.sim.requestsFor("get");
    expect(gets.map((r) => r.path)).toEqual([
      expect.stringMatching(/\/get\/certificatename\/late-create$/),
    ]);
  });

  it("a create still held when certsched gave up is unknown: a 504 saying to check with certsched get", async () => {
    app.sim.inject("create", { delayMs: 10_000 });

    const reply = await create({ ...INPUT, certificateName: "held-create" });

    unknownProblem(reply, "held-create");
    expect(app.sim.requestsFor("create")).toHaveLength(1);
    expect(app.sim.requestsFor("get")).toHaveLength(1);
  });

  it("an older certificate of the same name does not confirm a create: unknown", async () => {
    app.sim.inject("create", { delayMs: 10_000 });

    const reply = await create({ ...INPUT, certificateName: "existing" });

    const problem = unknownProblem(reply, "existing");
    expect(problem.detail).toMatch(
      /shows only an earlier certificate of that name \(id \d+, issued /,
    );
  });

  it("create waits CERTSCHED_SCHEDULE_TIMEOUT, not CERTSCHED_HTTP_TIMEOUT", async () => {
    await app.configure({ CERTSCHED_HTTP_TIMEOUT: "200ms", CERTSCHED_SCHEDULE_TIMEOUT: "10s" });
    // Longer than the HTTP timeout, well within the schedule timeout.
    app.sim.inject("create", { delayMs: 600 });

    const reply = await create({ ...INPUT, certificateName: "patient-create" });

    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      status: "scheduled",
      certificateName: "patient-create",
      account: "default",
      message: "Certificate patient-create is scheduled for creation.",
    });
    // Answered in time: nothing to confirm.
    expect(app.sim.requestsFor("get")).toEqual([]);
  });
});

describe("v3 renew: CERTSCHED_SCHEDULE_TIMEOUT", () => {
  it("a renewal that timed out but took effect is confirmed by a later expiry", async () => {
    const before = app.sim.certificates().find((c) => c.certificateName === "due-soon");
    app.sim.inject("renew", { dripMs: 200 });

    const reply = await renew("due-soon");

    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({
      status: "scheduled",
      certificateName: "due-soon",
      message: expect.stringMatching(
        /^the service did not answer in time, but Get Certificate shows due-soon renewed \(expires \S+Z\)$/,
      ),
      confirmedBy: "get-certificate",
    });
    const after = app.sim.certificates().find((c) => c.certificateName === "due-soon");
    expect(after?.expiryDate.getTime()).toBeGreaterThan(before?.expiryDate.getTime() ?? Infinity);
    expect(app.sim.requestsFor("renew")).toHaveLength(1);
    // One look-up before the renewal (its target and expiry), one after the timeout.
    expect(app.sim.requestsFor("get")).toHaveLength(2);
  });

  it("a renewal still held when certsched gave up is unknown, sent once", async () => {
    app.sim.inject("renew", { delayMs: 10_000 });

    const reply = await renew("existing");

    const problem = unknownProblem(reply, "existing");
    expect(problem.detail).toContain("Get Certificate does not show a new expiry yet");
    expect(app.sim.requestsFor("renew")).toHaveLength(1);
  });

  describe.each([
    ["with the ledger", () => ({ AzureWebJobsStorage: inject("azuriteTableConnectionString") })],
    ["without a ledger", () => ({})],
  ])("%s", (_, storage) => {
    it.each([
      ["another certificate's id under the same name", (name: string) => name],
      [
        "another certificate's id under the name in other case",
        (name: string) => name.toUpperCase(),
      ],
    ])(
      "a renewal that timed out is not confirmed by a record with %s and a later expiry",
      async (_, spelled) => {
        await app.configure({ CERTSCHED_SCHEDULE_TIMEOUT: SHORT, ...storage() });
        const certs = app.sim.certificates();
        const asked = certs.find((c) => c.certificateName === "existing");
        const other = certs.find((c) => c.certificateName === "due-soon");
        if (!asked || !other) throw new Error("the simulator lost its certificates");
        // Held: nothing is renewed while certsched waits. The look-up before the renewal is
        // answered by the simulator; the one after it, with another certificate's record.
        app.sim.inject("renew", { delayMs: 10_000 });
        app.sim.inject("get", {});
        app.sim.inject("get", {
          status: 200,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            ...toCertificateRecord(other),
            certificateName: spelled(asked.certificateName),
            expiryDate: formatServiceDate(new Date(asked.expiryDate.getTime() + 90 * DAY_MS)),
          }),
        });

        const reply = await renew("existing");

        const problem = unknownProblem(reply, "existing");
        expect(problem.detail).toContain(
          `Get Certificate shows another certificate (id ${other.id}, not ${asked.id})`,
        );
        expect(app.sim.requestsFor("renew")).toHaveLength(1);
        expect(app.sim.requestsFor("get")).toHaveLength(2);
      },
    );
  });

  it("v3 renew waits CERTSCHED_SCHEDULE_TIMEOUT, not CERTSCHED_HTTP_TIMEOUT", async () => {
    await app.configure({ CERTSCHED_HTTP_TIMEOUT: "200ms", CERTSCHED_SCHEDULE_TIMEOUT: "10s" });
    app.sim.inject("renew", { delayMs: 600 });

    const reply = await renew("existing");

    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      status: "scheduled",
      certificateName: "existing",
      account: "default",
      message: "Certificate existing is scheduled for update.",
    });
  });
});
