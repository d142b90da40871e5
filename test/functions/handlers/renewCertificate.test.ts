import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type AppHarness, type Reply, startHarness } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      { certificateName: "www-contoso-com", expiryDate: new Date(Date.now() + 5 * DAY_MS) },
      {
        certificateName: "intranet-contoso-com",
        expiryDate: new Date(Date.now() + 8 * DAY_MS),
        refuseRenewal:
          "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'",
      },
    ],
  });
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

function renew(name: string): Promise<Reply> {
  return app.call(
    renewCertificate,
    httpRequest({ path: `certificates/${encodeURIComponent(name)}/renew`, params: { name } }),
  );
}

describe("renewCertificate", () => {
  it("answers 202 with the service's message and renews through v3", async () => {
    const reply = await renew("www-contoso-com");

    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      status: "scheduled",
      certificateName: "www-contoso-com",
      account: "default",
      message: "Certificate www-contoso-com is scheduled for update.",
    });
    const [sent, ...more] = app.sim.requestsFor("renew");
    expect(more).toEqual([]);
    expect(sent?.headers.authorization).toBe(`Bearer ${app.sim.options.apiKey}`);
    const body = JSON.parse(sent?.body ?? "{}") as Record<string, unknown>;
    expect(body).toEqual({ certificateName: "www-contoso-com", accessToken: expect.any(String) });
    expect(app.sim.issuedTokens()).toContain(body.accessToken);
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });

  it("maps the service's refusal (400) to 422 with its own words", async () => {
    const reply = await renew("intranet-contoso-com");

    expect(reply.status).toBe(422);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    expect(reply.body).toMatchObject({
      code: "UPSTREAM_REJECTED",
      detail: expect.stringContaining("DNS zone 'contoso-dns' not found"),
    });
  });

  it("maps an unknown certificate (400 from the service) to 422 naming it", async () => {
    const reply = await renew("nope-contoso-com");

    expect(reply.status).toBe(422);
    expect((reply.body as { detail: string }).detail).toContain(
      "Certificate nope-contoso-com not found",
    );
  });

  it("refuses an empty name with 400 and calls nobody", async () => {
    const reply = await renew("");

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ errors: [{ name: "name", message: expect.any(String) }] });
    expect(app.sim.requests).toEqual([]);
  });
});
