import { afterEach, describe, expect, it } from "vitest";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { ConfigError } from "../../../shared/lib/errors.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type AppHarness, STACK_FRAME, startHarness } from "../../support/app.js";
import { httpRequest, timer } from "../../support/invoke.js";

/*
 * The renewal calendar's settings in the function app: a declaration that is wrong, or that
 * would never let a certificate be renewed, fails the HTTP functions with a clear 503 naming
 * the setting and the field (no stack trace) and fails the timer before anything is sent.
 */

let app: AppHarness | undefined;
afterEach(async () => {
  if (app) expect(app.leaks()).toEqual([]);
  await app?.close();
  app = undefined;
});

async function started(settings: Record<string, string>): Promise<AppHarness> {
  app = await startHarness({
    certificates: [{ certificateName: "www", expiryDate: new Date(Date.now() + 3.5 * DAY_MS) }],
  });
  await app.configure(settings, { ledger: memoryLedger() });
  return app;
}

const json = (value: unknown) => JSON.stringify(value);
const BERLIN = { start: "0 9 * * 2-4", duration: "7h", timeZone: "Europe/Berlin" };

describe("GET /api/certificates/due with a malformed declaration", () => {
  it("answers 503 naming each setting's entry and field, without a stack trace", async () => {
    const app = await started({
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 9 * * 2" }]),
      CERTSCHED_CERTIFICATE_POLICY: json([{ certificates: ["www"], policy: "never" }]),
    });

    const reply = await app.call(
      listDueCertificates,
      httpRequest({ method: "GET", path: "certificates/due" }),
    );

    expect(reply.status).toBe(503);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      code: "CONFIG_INVALID",
      title: "certsched is not configured",
      errors: [
        {
          name: "CERTSCHED_RENEWAL_WINDOWS[0].start",
          message: expect.stringMatching(/^must have five fields .*it has 6/),
        },
        {
          name: "CERTSCHED_CERTIFICATE_POLICY[0].policy",
          message: 'must be "renew" or "disabled"',
        },
      ],
    });
    expect(reply.text).not.toMatch(STACK_FRAME);
    expect(app.sim.requests).toEqual([]);
  });
});

describe("the renewal timer with a declaration that would never renew", () => {
  it("fails with the configuration error, naming the window, and sends nothing", async () => {
    const app = await started({
      CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 30 2 *" }]),
    });

    const run = renewDueCertificates(timer(), app.context("renewDueCertificates"));

    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain("CERTSCHED_RENEWAL_WINDOWS[0]");
    expect(app.sim.requests).toEqual([]);
  });
});
