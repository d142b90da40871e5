import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testConnectivity } from "../../../functions/testConnectivity.js";
import { type AppHarness, startHarness } from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness();
});
beforeEach(async () => {
  app.sim.reset();
  await app.configure();
});
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

const connectivity = () =>
  app.call(testConnectivity, httpRequest({ method: "GET", path: "connectivity" }));

describe("testConnectivity", () => {
  it("answers 200 when the public test operation accepts certsched's tokens", async () => {
    const reply = await connectivity();

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, account: "default", message: "Connection successful." });
    const [sent] = app.sim.requestsFor("test");
    const body = JSON.parse(sent?.body ?? "{}") as Record<string, string>;
    expect(app.sim.issuedTokens()).toEqual(
      expect.arrayContaining([body.accessToken, body.accessTokenKeyVault]),
    );
    expect(body.accessToken).not.toBe(body.accessTokenKeyVault);
  });

  it("answers 502 when the service refuses the subscription id (401)", async () => {
    await app.configure({ CERTSCHED_SUBSCRIPTION_ID: "9999" });

    const reply = await connectivity();

    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: "UPSTREAM_UNAUTHORIZED",
      title: "The service refused certsched's credentials",
      detail: expect.stringContaining("unknown subscription id"),
    });
  });

  it("answers 502 when the identity provider refuses the client secret", async () => {
    await app.configure({ CERTSCHED_CLIENT_SECRET: "a-wrong-client-secret" });
    app.addSecrets("a-wrong-client-secret");

    const reply = await connectivity();

    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: "TOKEN_REFUSED",
      detail: expect.stringContaining("AADSTS7000215"),
    });
    expect(app.sim.requestsFor("test")).toEqual([]);
  });
});
