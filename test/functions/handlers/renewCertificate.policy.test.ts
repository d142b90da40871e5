import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { getServices } from "../../../shared/app/services.js";
import { OPEN_CALENDAR } from "../../../shared/core/windows/calendar.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type AppHarness, type Reply, startHarness } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

/**
 * POST /api/certificates/{name}/renew and the renewal calendar: a certificate its policy
 * disables is answered 409 naming the policy and nothing reaches the service, unless
 * `force=true`; windows and freezes never hold a person's request.
 */

const LEGACY = "legacy-contoso-com";
const WWW = "www-contoso-com";
let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      { certificateName: LEGACY, expiryDate: new Date(Date.now() + 40 * DAY_MS) },
      { certificateName: WWW, expiryDate: new Date(Date.now() + 41 * DAY_MS) },
    ],
  });
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure({});
  // The account's settings as loaded with a policy, a window that is not open and a freeze now.
  const ports = getServices().forAccount();
  Object.assign(ports, {
    settings: {
      ...ports.settings,
      renewalCalendar: {
        ...OPEN_CALENDAR,
        windows: [
          {
            label: "CERTSCHED_RENEWAL_WINDOWS[0]",
            start: "0 9 29 2 *",
            durationMs: HOUR_MS,
            timeZone: "Europe/Berlin",
          },
        ],
        freezes: [
          {
            label: "CERTSCHED_RENEWAL_FREEZES[0]",
            from: new Date(Date.now() - DAY_MS),
            to: new Date(Date.now() + DAY_MS),
            reason: "release",
          },
        ],
        policies: [
          {
            label: "CERTSCHED_CERTIFICATE_POLICY[0]",
            certificates: ["legacy-*"],
            policy: "disabled",
          },
        ],
      },
    },
  });
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function renew(name: string, query: Record<string, string> = {}): Promise<Reply> {
  return app.call(
    renewCertificate,
    httpRequest({
      path: `certificates/${encodeURIComponent(name)}/renew`,
      params: { name },
      query,
    }),
  );
}

describe("renewCertificate and the renewal calendar", () => {
  it("answers 409 naming the policy and force=true; nothing is sent", async () => {
    const reply = await renew(LEGACY);
    expect(reply.status).toBe(409);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      type: expect.stringMatching(/policy-disabled$/),
      title: "Disabled by its certificate policy",
      status: 409,
      code: "POLICY_DISABLED",
      detail: expect.stringContaining("CERTSCHED_CERTIFICATE_POLICY[0]"),
      errors: [{ name: "force", message: expect.stringContaining("force=true") }],
    });
    expect(app.sim.renewCallsFor(LEGACY)).toBe(0);
  });

  it("renews it with force=true, saying past which policy", async () => {
    const reply = await renew(LEGACY, { force: "true" });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({
      status: "scheduled",
      forcedPastPolicy: "CERTSCHED_CERTIFICATE_POLICY[0]",
    });
    expect(app.sim.renewCallsFor(LEGACY)).toBe(1);
  });

  it("renews another certificate although no window is open and a freeze holds", async () => {
    const reply = await renew(WWW);
    expect(reply.status).toBe(202);
    expect(app.sim.renewCallsFor(WWW)).toBe(1);
  });
});
