import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getAccountPorts } from "../../../../shared/app/services.js";
import {
  type CreateCertificateInput,
  createCertificateInput,
} from "../../../../shared/core/certificate/createRequest.js";
import type { RenewOptions } from "../../../../shared/core/ports/service.js";
import {
  CALLS_WITHIN_MS,
  type CallBudget,
  CONFIRM_RESERVE_MS,
  callBudget,
  FRONT_END_LIMIT_MS,
  SCHEDULE_TIMEOUT_MAX_MS,
  type WithinOptions,
} from "../../../../shared/core/renewal/callBudget.js";
import { OutcomeUnknownError } from "../../../../shared/lib/errors.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { createConfirmed } from "../../../../shared/usecases/createCertificate.js";
import { renewByName } from "../../../../shared/usecases/renewByName.js";
import { type AppHarness, startHarness } from "../../../support/app.js";
import { validCreateInputs } from "../../../support/createBodies.js";

/**
 * The HTTP functions that create and renew answer within the platform's 230 s front end: the
 * schedule call, the look-up before a renewal and the Get Certificate that confirms an
 * unanswered call share one budget (regression: with the defaults, a 120 s create then a
 * 135 s Get answered after the front end had dropped the request).
 *
 * Real calls over the simulator; the budget's clock is a fake the wrapped client moves forward
 * as if each call had taken as long as the test says (no test waits for minutes).
 */

// Each test creates its own name: a create the simulator still holds from one test lands later.
const input = (certificateName: string): CreateCertificateInput =>
  createCertificateInput.parse({ ...validCreateInputs().appServiceHttp, certificateName });
const log = { info: () => {}, warn: () => {}, error: () => {} };

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [{ certificateName: "existing", expiryDate: new Date(Date.now() + 5 * DAY_MS) }],
  });
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure({ CERTSCHED_SCHEDULE_TIMEOUT: "300ms" });
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

/** A fake clock and the budget read from it. */
function fakeBudget(withinMs = CALLS_WITHIN_MS): { budget: CallBudget; advance(ms: number): void } {
  let now = 0;
  return { budget: callBudget(withinMs, () => now), advance: (ms) => (now += ms) };
}

/** The runtime's real client, each call taking `takes[operation]` ms on the fake clock. */
function slowClient(advance: (ms: number) => void, takes: { create?: number; renew?: number }) {
  const client = getAccountPorts().client;
  const seen: { operation: string; left: number | undefined }[] = [];
  return {
    seen,
    create: async (create: CreateCertificateInput, options?: WithinOptions) => {
      seen.push({ operation: "create", left: options?.budget?.left() });
      try {
        return await client.create(create, options);
      } finally {
        advance(takes.create ?? 0);
      }
    },
    renew: async (name: string, options?: RenewOptions) => {
      seen.push({ operation: "renew", left: options?.budget?.left() });
      try {
        return await client.renew(name, options);
      } finally {
        advance(takes.renew ?? 0);
      }
    },
    get: (name: string, options?: WithinOptions) => {
      seen.push({ operation: "get", left: options?.budget?.left() });
      return client.get(name, options);
    },
  };
}

describe("the defaults fit the front end", () => {
  it("the longest schedule call and the confirmation's reserve fit in the budget, under 230 s", () => {
    expect(CALLS_WITHIN_MS).toBeLessThan(FRONT_END_LIMIT_MS);
    expect(SCHEDULE_TIMEOUT_MAX_MS + CONFIRM_RESERVE_MS).toBeLessThanOrEqual(CALLS_WITHIN_MS);
    expect(getAccountPorts().settings.scheduleTimeoutMs).toBeDefined();
  });
});

describe("create", () => {
  it("a create that timed out after the whole budget is unknown without a Get the front end would cut", async () => {
    app.sim.inject("create", { delayMs: 10_000 });
    const { budget, advance } = fakeBudget();
    const client = slowClient(advance, { create: CALLS_WITHIN_MS });

    const error = await createConfirmed(
      client,
      input("spent-create"),
      getAccountPorts().now,
      budget,
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toContain("unknown: check with certsched get spent-create");
    expect((error as Error).message).toContain("no time was left to ask Get Certificate");
    expect((error as Error).message).not.toMatch(/again|re-?create|retry/i);
    expect(app.sim.requestsFor("create")).toHaveLength(1);
    expect(app.sim.requestsFor("get")).toEqual([]);
  });

  it("the create keeps the confirmation's reserve; the Get is given only what is left", async () => {
    await app.configure({ CERTSCHED_SCHEDULE_TIMEOUT: "300ms", CERTSCHED_HTTP_TIMEOUT: "30s" });
    app.sim.inject("create", { delayMs: 10_000 });
    // A Get held longer than the test's own timeout: only the budget's 200 ms can end it.
    app.sim.inject("get", { delayMs: 20_000 });
    const { budget, advance } = fakeBudget();
    // The create took all but 200 ms of the budget.
    const client = slowClient(advance, { create: CALLS_WITHIN_MS - 200 });

    await expect(
      createConfirmed(client, input("reserve-create"), getAccountPorts().now, budget),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);

    expect(client.seen).toEqual([
      { operation: "create", left: CALLS_WITHIN_MS - CONFIRM_RESERVE_MS },
      { operation: "get", left: 200 },
    ]);
    expect(app.sim.requestsFor("get")).toHaveLength(1);
  });
});

describe("renew by name", () => {
  it("the look-up leaves the renewal a whole attempt and the confirmation its reserve", async () => {
    await app.configure({ CERTSCHED_SCHEDULE_TIMEOUT: "120s" });
    app.sim.inject("renew", { status: 500, times: 1 });
    const { budget, advance } = fakeBudget();
    const client = slowClient(advance, {});

    await renewByName(
      { ...getAccountPorts(), client, budget },
      "existing",
      { trigger: "cli", by: "cli" },
      log,
    ).catch(() => undefined);

    expect(client.seen[0]).toEqual({
      operation: "get",
      left: CALLS_WITHIN_MS - 120_000 - CONFIRM_RESERVE_MS,
    });
  });

  it("a renewal that timed out after the whole budget is unknown without a second Get", async () => {
    app.sim.inject("renew", { delayMs: 10_000 });
    const { budget, advance } = fakeBudget();
    const client = slowClient(advance, { renew: CALLS_WITHIN_MS });

    const error = await renewByName(
      { ...getAccountPorts(), client, budget },
      "existing",
      { trigger: "cli", by: "cli" },
      log,
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toContain("unknown: check with certsched get existing");
    expect((error as Error).message).toContain("no time was left to ask Get Certificate");
    expect(app.sim.requestsFor("renew")).toHaveLength(1);
    // Only the look-up before the renewal.
    expect(app.sim.requestsFor("get")).toHaveLength(1);
  });
});
