import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificate } from "../../../../functions/createCertificate.js";
import { renewCertificate } from "../../../../functions/renewCertificate.js";
import { testConnectivity } from "../../../../functions/testConnectivity.js";
import { createSecretClientReader } from "../../../../shared/adapters/identity/secretClientReader.js";
import type { Seams } from "../../../../shared/app/seams.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { type AppHarness, type Reply, type Settings, startHarness } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";
import { validCreateInputs } from "../../../support/createBodies.js";
import {
  type FakeKeyVault,
  startFakeKeyVault,
  stubCredential,
} from "../../../support/fakeKeyVault.js";
import { httpRequest } from "../../../support/invoke.js";

const API_KEY_NAME = "certsched-api-key";
const CLIENT_SECRET_NAME = "certsched-client-secret";

const INPUT = validCreateInputs().appServiceHttp;

const clock = fakeClock();
let app: AppHarness;
let vault: FakeKeyVault;

/** The app reads its secrets from the fake vault through the real SecretClient. */
const overrides: Seams = {
  now: clock.now,
  createSecretReader: (url) => createSecretClientReader(url, stubCredential, vault.clientOptions),
};

/** Settings with the vault and without the direct secrets. */
function fromVault(extra: Settings = {}): Settings {
  return {
    CERTSCHED_API_KEY: undefined,
    CERTSCHED_CLIENT_SECRET: undefined,
    CERTSCHED_KEY_VAULT_URL: vault.url,
    // Long enough that only a refusal, never the clock, makes the app read the vault again.
    CERTSCHED_SECRET_CACHE_TTL: "24h",
    ...extra,
  };
}

beforeAll(async () => {
  app = await startHarness({ now: clock.now });
});
beforeEach(async () => {
  vault = await startFakeKeyVault({
    secrets: {
      [API_KEY_NAME]: app.sim.options.apiKey,
      [CLIENT_SECRET_NAME]: app.sim.options.clientSecret,
    },
  });
  app.sim.reset();
  await app.configure(fromVault(), overrides);
});
afterEach(async () => {
  expect(app.leaks()).toEqual([]);
  await vault.close();
});
afterAll(() => app.close());

const create = (certificateName = INPUT.certificateName): Promise<Reply> =>
  app.call(
    createCertificate,
    httpRequest({ path: "certificates", json: { ...INPUT, certificateName } }),
  );

/** The client_secret each token request sent, in order (the simulator records bodies). */
const secretsSent = () =>
  app.sim.requestsFor("token").map((r) => new URLSearchParams(r.body).get("client_secret"));

describe("secrets from Key Vault at runtime", () => {
  it("reads the API key and the client secret from the vault and works", async () => {
    const created = await create();
    const tested = await app.call(
      testConnectivity,
      httpRequest({ method: "GET", path: "connectivity" }),
    );

    expect(created.status).toBe(202);
    expect(tested.status).toBe(200);
    expect(app.sim.requestsFor("create")[0]?.headers.authorization).toBe(
      `Bearer ${app.sim.options.apiKey}`,
    );
    expect(secretsSent().every((s) => s === app.sim.options.clientSecret)).toBe(true);
    // Read once each, then cached.
    expect(vault.reads(API_KEY_NAME)).toBe(1);
    expect(vault.reads(CLIENT_SECRET_NAME)).toBe(1);
  });

  it("after a rotation, re-reads the client secret once when it is refused, and succeeds", async () => {
    const oldSecret = app.sim.options.clientSecret;
    expect((await create("before-rotation")).status).toBe(202);
    const rotated = `rotated-secret-${randomBytes(12).toString("hex")}`;
    app.addSecrets(oldSecret, rotated);
    app.sim.setClientSecret(rotated);
    vault.setSecret(CLIENT_SECRET_NAME, rotated);
    // Past the cached token's expiry (3599 s), well within the secret's cache time.
    clock.advance(2 * HOUR_MS);
    app.sim.reset();

    const reply = await create("after-rotation");

    expect(reply.status).toBe(202);
    // The cached (old) secret was refused with AADSTS7000215, the vault was read again, once,
    // and the token request repeated with the rotated secret.
    expect(secretsSent()).toEqual([oldSecret, rotated]);
    expect(vault.reads(CLIENT_SECRET_NAME)).toBe(2);
    expect(app.sim.requestsFor("create")).toHaveLength(1);
  });

  it("both tokens at once after a rotation still cost one extra vault read", async () => {
    expect((await create("before-rotation")).status).toBe(202);
    const rotated = `rotated-secret-${randomBytes(12).toString("hex")}`;
    app.addSecrets(rotated);
    app.sim.setClientSecret(rotated);
    vault.setSecret(CLIENT_SECRET_NAME, rotated);
    clock.advance(2 * HOUR_MS);

    const reply = await app.call(
      testConnectivity,
      httpRequest({ method: "GET", path: "connectivity" }),
    );

    expect(reply.status).toBe(200);
    expect(vault.reads(CLIENT_SECRET_NAME)).toBe(2);
  });

  it("a rotation the vault does not know about yet fails with 502 naming AADSTS7000215", async () => {
    const oldSecret = app.sim.options.clientSecret;
    expect((await create("before-rotation")).status).toBe(202);
    const rotated = `rotated-secret-${randomBytes(12).toString("hex")}`;
    app.addSecrets(oldSecret, rotated);
    app.sim.setClientSecret(rotated);
    clock.advance(2 * HOUR_MS);
    app.sim.reset();

    const reply = await create("after-rotation");

    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: "TOKEN_REFUSED",
      detail: expect.stringContaining("AADSTS7000215"),
    });
    // Re-read once, found the same secret, did not try it again.
    expect(vault.reads(CLIENT_SECRET_NAME)).toBe(2);
    expect(secretsSent()).toEqual([oldSecret]);
  });

  it("direct values win over the vault", async () => {
    vault.setSecret(API_KEY_NAME, "vault-api-key-that-is-wrong");
    vault.setSecret(CLIENT_SECRET_NAME, "vault-client-secret-that-is-wrong");
    app.addSecrets("vault-api-key-that-is-wrong", "vault-client-secret-that-is-wrong");
    await app.configure(
      fromVault({
        CERTSCHED_API_KEY: app.sim.options.apiKey,
        CERTSCHED_CLIENT_SECRET: app.sim.options.clientSecret,
      }),
      overrides,
    );

    const reply = await create();

    expect(reply.status).toBe(202);
    expect(vault.requests).toEqual([]);
  });

  it("a secret missing from the vault is a 503 naming the secret, not its value", async () => {
    vault.deleteSecret(API_KEY_NAME);

    const reply = await create();

    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({
      code: "SECRET_UNAVAILABLE",
      detail: expect.stringMatching(/certsched-api-key.*404/),
    });
    expect(app.sim.requestsFor("create")).toEqual([]);
  });
});

describe("CERTSCHED_SECRET_CACHE_TTL", () => {
  const MINUTE_MS = 60_000;
  const NAME = "ttl-contoso-com";

  const renew = (): Promise<Reply> =>
    app.call(
      renewCertificate,
      httpRequest({ path: `certificates/${NAME}/renew`, params: { name: NAME } }),
    );
  /** The API key the last v3 renew request carried. */
  const keySent = () => app.sim.requestsFor("renew").at(-1)?.headers.authorization;

  it("keeps a rotated API key's old value for 10m, then reads the vault once more", async () => {
    if (!app.sim.certificates().some((c) => c.certificateName === NAME)) {
      app.sim.addCertificate({
        certificateName: NAME,
        expiryDate: new Date(clock.now().getTime() + 5 * DAY_MS),
      });
    }
    await app.configure(fromVault({ CERTSCHED_SECRET_CACHE_TTL: "10m" }), overrides);
    const oldKey = app.sim.options.apiKey;
    const rotated = `rotated-api-key-${randomBytes(12).toString("hex")}`;
    app.addSecrets(rotated);

    expect((await renew()).status).toBe(202);
    expect(keySent()).toBe(`Bearer ${oldKey}`);
    vault.setSecret(API_KEY_NAME, rotated);

    clock.advance(9 * MINUTE_MS);
    const withinTtl = await renew();

    expect(withinTtl.status).toBe(202);
    expect(keySent()).toBe(`Bearer ${oldKey}`);
    expect(vault.reads(API_KEY_NAME)).toBe(1);

    clock.advance(MINUTE_MS + 1_000);
    const pastTtl = await renew();

    // The rotated value reached the wire; this simulator still expects the old key, so it refuses.
    expect(keySent()).toBe(`Bearer ${rotated}`);
    expect(pastTtl.status).toBe(502);
    expect(pastTtl.body).toMatchObject({ code: "UPSTREAM_UNAUTHORIZED" });
    expect(vault.reads(API_KEY_NAME)).toBe(2);

    // The new value is cached in turn: no third read.
    await renew();
    expect(keySent()).toBe(`Bearer ${rotated}`);
    expect(vault.reads(API_KEY_NAME)).toBe(2);
    // Four calls; the first 401 is sent once more with a fresh management token (a 401 may mean
    // a revoked token), the second is not: that token was itself a replacement.
    expect(app.sim.requestsFor("renew")).toHaveLength(5);
  });
});
