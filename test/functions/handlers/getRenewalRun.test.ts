import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getRenewalRun } from "../../../functions/getRenewalRun.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { STACK_FRAME } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";
import { principalHeader } from "../../support/principals.js";
import { type RunsWorld, runOf, startRunsWorld } from "../../support/runs.js";

let world: RunsWorld;

beforeEach(async () => {
  world = await startRunsWorld();
});
afterEach(async () => {
  delete process.env.WEBSITE_AUTH_ENABLED;
  expect(world.app.leaks(await world.storedTexts())).toEqual([]);
  await world.close();
});

describe("GET /api/renewals/{runId}", () => {
  it("answers 404 problem+json for a run id nobody started", async () => {
    const runId = randomUUID();

    const reply = await world.get(runId);

    expect(reply.status).toBe(404);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      code: "RUN_NOT_FOUND",
      status: 404,
      detail: expect.stringContaining(runId),
    });
  });

  it("finds a run by its id in upper case too", async () => {
    const { runId } = runOf(await world.post());

    const reply = await world.get(runId.toUpperCase());

    expect(reply.status).toBe(200);
    expect(runOf(reply).runId).toBe(runId);
  });

  it.each(["nope", "12345", `${randomUUID()}x`, "../renewals", " "])(
    "refuses the id %j with 400 naming runId",
    async (runId) => {
      const reply = await world.get(runId);

      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({
        code: "VALIDATION_FAILED",
        errors: [{ name: "runId", message: "must be a run id: a UUID, as in the Location header" }],
      });
      expect(reply.text).not.toMatch(STACK_FRAME);
    },
  );

  it("takes no query parameters", async () => {
    const { runId } = runOf(await world.post());
    const reply = await world.app.call(
      getRenewalRun,
      httpRequest({
        method: "GET",
        path: `renewals/${runId}`,
        query: { wait: "5" },
        params: { runId },
      }),
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ errors: [{ name: "wait" }] });
  });
});

describe("roles (App Service Authentication on)", () => {
  const as = (roles: string[]) => ({
    "x-ms-client-principal": principalHeader({ name: "ada@contoso.com", roles }),
  });

  beforeEach(() => {
    process.env.WEBSITE_AUTH_ENABLED = "True";
  });

  it("POST needs Operator: a Reader gets 403 naming the role, and nothing is queued", async () => {
    const reply = await world.post({ headers: as([READER]) });

    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({
      code: "FORBIDDEN",
      errors: [{ name: "role", message: `${OPERATOR} required` }],
    });
    expect(await world.queue.exists()).toBe(false);
  });

  it("an Operator queues a run, recorded as requested by them; a Reader may read it", async () => {
    const posted = await world.post({ headers: as([OPERATOR]) });
    expect(posted.status).toBe(202);
    const { runId } = runOf(posted);
    expect(runOf(posted).requestedBy).toBe(
      "entra:ada@contoso.com (00000000-0000-0000-0000-0000000000aa)",
    );

    expect((await world.get(runId, as([READER]))).status).toBe(200);
    expect((await world.get(runId, as([OPERATOR]))).status).toBe(200);
  });

  it("GET needs Reader: a principal without a role gets 403", async () => {
    const { runId } = runOf(await world.post({ headers: as([OPERATOR]) }));

    const reply = await world.get(runId, as([]));

    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ errors: [{ name: "role", message: `${READER} required` }] });
  });
});

describe("no secret in any row or response", () => {
  it("a renewal refused with an answer quoting the API key and a token: redacted everywhere", async () => {
    const sim = world.app.sim;
    // The service echoes what it was sent: our API key, and the token it issued us.
    const quoted = () => `refused: key ${sim.options.apiKey} token ${sim.issuedTokens().join(" ")}`;
    sim.inject("publicRenew", { status: 400, body: quoted(), times: 10 });
    const { runId } = runOf(await world.post());
    await world.drainRuns();

    const reply = await world.get(runId);

    const run = runOf(reply);
    expect(run.state).toBe("failed");
    expect(run.results?.[0]?.detail).toContain("[REDACTED]");
    // afterEach checks logs, bodies, every run row and queued message for every secret.
    expect(world.app.secrets().length).toBeGreaterThan(2);
  });
});
