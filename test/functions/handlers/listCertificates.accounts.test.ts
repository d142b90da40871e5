import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../../functions/createCertificate.js";
import { dashboard } from "../../../functions/dashboard.js";
import { getCertificate } from "../../../functions/getCertificate.js";
import { getVerifications } from "../../../functions/getVerifications.js";
import { listCertificates } from "../../../functions/listCertificates.js";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { testConnectivity } from "../../../functions/testConnectivity.js";
import { verifyCertificates } from "../../../functions/verifyCertificates.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { sandboxSettings } from "../../../sim/index.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { configureApp, releaseApp } from "../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { httpRequest, invocationContext, type RequestInit, timer } from "../../support/invoke.js";
import { type Reply, toReply } from "../../support/reply.js";

/*
 * The HTTP API with two declared accounts, each on its own simulator with its own
 * credentials, over an Azurite of this file's own: the same certificate name in both accounts,
 * the account filter, the 400s of a missing or unknown account, one account's credentials
 * refused while the other answers, and no account's secret in any answer, log line, or the
 * other account's requests on the wire. Real HttpRequest / InvocationContext objects, the
 * process-wide services as the host builds them.
 */

const A = "contoso";
const B = "fabrikam-eu";
let azurite: AzuriteHandle;
let accounts: SimAccounts;
const bodies: string[] = [];
const logs: string[] = [];

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

async function call(handler: Handler, init: RequestInit): Promise<Reply> {
  const context = invocationContext(handler.name, (_level, message) => logs.push(message));
  const reply = toReply(await handler(httpRequest(init), context));
  bodies.push(reply.text);
  return reply;
}

const get = (handler: Handler, path: string, query: Record<string, string> = {}) =>
  call(handler, { method: "GET", path, query });

beforeAll(async () => {
  azurite = await startAzurite();
  accounts = await startSimAccounts([A, B], (name) => ({
    // The same name in both accounts, each with its own expiry and domain.
    certificates: [
      {
        certificateName: "www",
        rootDomain: `${name}.example`,
        expiryDate: new Date(Date.now() + (name === A ? 5.5 : 12.5) * DAY_MS),
      },
    ],
  }));
  await configureApp({ ...accounts.env(), AzureWebJobsStorage: azurite.connectionString });
});

afterAll(async () => {
  await releaseApp();
  await accounts?.close();
  await azurite?.stop();
});

/** The problem's single error, as a caller reads it. */
function accountProblem(reply: Reply) {
  expect(reply.status).toBe(400);
  expect(reply.headers["content-type"]).toBe("application/problem+json");
  return (reply.body as { errors: { name: string; message: string }[] }).errors;
}

describe("the HTTP API with two accounts", () => {
  it("lists every account's due certificates, each with its account", async () => {
    const reply = await get(listDueCertificates, "certificates/due");
    expect(reply.status).toBe(200);
    const { certificates } = reply.body as {
      certificates: { account: string; certificateName: string; daysLeft: number }[];
    };
    expect(certificates.map((c) => [c.account, c.certificateName, c.daysLeft])).toEqual([
      [A, "www", 5],
      [B, "www", 12],
    ]);
    const only = await get(listDueCertificates, "certificates/due", { account: B });
    expect(
      (only.body as { certificates: { account: string }[] }).certificates.map((c) => c.account),
    ).toEqual([B]);
  });

  it("GET /api/certificates: both www rows, the account filter, a summary line per account", async () => {
    const reply = await get(listCertificates, "certificates");
    expect(reply.status).toBe(200);
    const body = reply.body as {
      items: { account: string; certificateName: string; status: string }[];
      accounts: Record<string, unknown>[];
    };
    expect(body.items.map((i) => [i.certificateName, i.account, i.status])).toEqual([
      ["www", A, "expiring"],
      ["www", B, "expiring"],
    ]);
    expect(body.accounts).toEqual([
      expect.objectContaining({
        name: A,
        certificates: 1,
        failed: 0,
        stuck: 0,
        notLanded: 0,
        nextExpiryDays: 5,
      }),
      expect.objectContaining({ name: B, certificates: 1, nextExpiryDays: 12 }),
    ]);
    const filtered = await get(listCertificates, "certificates", { account: B });
    const only = filtered.body as typeof body;
    expect(only.items.map((i) => i.account)).toEqual([B]);
    expect(only.accounts.map((a) => a.name)).toEqual([B]);
  });

  it("pages across the accounts without repeating or losing the shared name", async () => {
    const first = await get(listCertificates, "certificates", { top: "1" });
    const page = first.body as { items: { account: string }[]; next: string };
    expect(page.items.map((i) => i.account)).toEqual([A]);
    const second = await get(listCertificates, "certificates", {
      top: "1",
      continuation: page.next,
    });
    const rest = second.body as { items: { account: string }[]; next?: string };
    expect(rest.items.map((i) => i.account)).toEqual([B]);
    expect(rest.next).toBeUndefined();
  });

  it("refuses an unknown account on every route with a 400 naming account and the known ones", async () => {
    const expected = [
      { name: "account", message: `'northwind' is unknown: the accounts are '${A}', '${B}'` },
    ];
    const query = { account: "northwind" };
    for (const reply of [
      await get(listCertificates, "certificates", query),
      await get(listDueCertificates, "certificates/due", query),
      await get(testConnectivity, "connectivity", query),
      await get(getVerifications, "verifications", query),
      await get(dashboard, "dashboard", query),
      await call(getCertificate, {
        method: "GET",
        path: "certificates/www",
        params: { name: "www" },
        query,
      }),
      await call(renewCertificate, {
        path: "certificates/www/renew",
        params: { name: "www" },
        query,
      }),
    ]) {
      expect(accountProblem(reply)).toEqual(expected);
    }
  });

  it("needs account on create, renew and get when more than one account is declared", async () => {
    const required = [
      {
        name: "account",
        message: `is required when more than one account is declared: the accounts are '${A}', '${B}'`,
      },
    ];
    const renews = accounts.accounts.map((a) => a.sim.requestsFor("renew").length);
    expect(
      accountProblem(
        await call(renewCertificate, { path: "certificates/www/renew", params: { name: "www" } }),
      ),
    ).toEqual(required);
    expect(
      accountProblem(
        await call(getCertificate, {
          method: "GET",
          path: "certificates/www",
          params: { name: "www" },
        }),
      ),
    ).toEqual(required);
    expect(
      accountProblem(
        await call(createCertificate, {
          path: "certificates",
          json: {
            certificateName: "shop",
            target: "appServiceHttp",
            rootDomain: "shop.example",
            subscriptionId: "00000000-0000-0000-0000-000000000000",
            resourceGroupName: "rg",
            webAppName: "shop",
          },
        }),
      ),
    ).toEqual(required);
    // Nothing was sent to either service.
    expect(accounts.accounts.map((a) => a.sim.requestsFor("renew").length)).toEqual(renews);
  });

  it("renews www in one account only: that account's service and ledger, not the other's", async () => {
    const reply = await call(renewCertificate, {
      path: "certificates/www/renew",
      params: { name: "www" },
      query: { account: A },
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({ status: "scheduled", certificateName: "www", account: A });
    expect(accounts.sim(A).requestsFor("renew")).toHaveLength(1);
    expect(accounts.sim(B).requestsFor("renew")).toHaveLength(0);
    expect(logs).toContain(`certsched renewal scheduled (v3): www (account ${A})`);
    // The ledger row is contoso's alone: fabrikam's www shows no renewal.
    const list = await get(listCertificates, "certificates");
    const items = (list.body as { items: { account: string; ledger: unknown; status: string }[] })
      .items;
    expect(items.map((i) => [i.account, i.status, i.ledger === null])).toEqual([
      [A, "pending", false],
      [B, "expiring", true],
    ]);
  });

  it("gets www of the account named, from that account's service", async () => {
    const before = accounts.sim(A).requestsFor("get").length;
    const reply = await call(getCertificate, {
      method: "GET",
      path: "certificates/www",
      params: { name: "www" },
      query: { account: B },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      account: B,
      certificateName: "www",
      service: { answer: "found" },
      status: { status: "expiring", ledger: null, expiry: { serviceDaysLeft: 12 } },
    });
    expect(accounts.sim(B).requestsFor("get").length).toBeGreaterThan(0);
    expect(accounts.sim(A).requestsFor("get")).toHaveLength(before);
  });

  it("shows verifications per account", async () => {
    const reply = await get(getVerifications, "verifications");
    expect(reply.status).toBe(200);
    const body = reply.body as { accounts: { name: string; notVerified: string[] }[] };
    expect(body.accounts).toEqual([
      expect.objectContaining({ name: A, notVerified: ["www"] }),
      expect.objectContaining({ name: B, notVerified: ["www"] }),
    ]);
  });

  it("shows every account on the dashboard, with the summary lines and the account filter", async () => {
    const reply = await get(dashboard, "dashboard");
    expect(reply.status).toBe(200);
    expect(reply.text).toContain(`<tr data-account="${A}">`);
    expect(reply.text).toContain(`<tr data-account="${B}">`);
    expect(reply.text.match(/<tr data-status="/g)).toHaveLength(2);
    expect(reply.text).toContain(`href="/api/certificates/www?account=${B}"`);
    const filtered = await get(dashboard, "dashboard", { account: B });
    expect(filtered.text.match(/<tr data-status="/g)).toHaveLength(1);
  });

  it("names the account in the log line of a renewal its service refused", async () => {
    accounts.sim(B).inject("renew", {
      status: 400,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "Renewal refused: DNS zone not found" }),
    });
    const reply = await call(renewCertificate, {
      path: "certificates/www/renew",
      params: { name: "www" },
      query: { account: B },
    });
    expect(reply.status).toBe(422);
    expect(logs.some((l) => l.startsWith(`renewCertificate (account ${B}) refused: `))).toBe(true);
  });

  it("answers connectivity per account; one account's refused credentials leave the other's answer", async () => {
    const both = await get(testConnectivity, "connectivity");
    expect(both.status).toBe(200);
    expect(both.body).toEqual({
      ok: true,
      accounts: [
        { account: A, ok: true, message: expect.any(String) },
        { account: B, ok: true, message: expect.any(String) },
      ],
    });
    // contoso's secret is rotated at its identity provider and the app still has the old one.
    const sim = accounts.sim(A);
    const old = sim.options.clientSecret;
    sim.setClientSecret(`rotated-${old}`);
    try {
      // accounts.env() now holds the rotated secret: the app keeps the old one for contoso.
      const declared = accounts
        .declarations()
        .map((d) => (d.name === A ? { ...d, clientSecret: old } : d));
      await configureApp({
        CERTSCHED_ACCOUNTS: JSON.stringify(declared),
        AzureWebJobsStorage: azurite.connectionString,
      });
      const one = await get(testConnectivity, "connectivity");
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({
        ok: false,
        accounts: [{ account: B, ok: true }],
        accountErrors: [{ account: A, status: 502, code: "TOKEN_REFUSED" }],
      });
      expect(logs.some((l) => l.startsWith(`certsched account ${A} failed (TOKEN_REFUSED)`))).toBe(
        true,
      );
    } finally {
      sim.setClientSecret(old);
      await configureApp({ ...accounts.env(), AzureWebJobsStorage: azurite.connectionString });
    }
  });

  it("never shows an account's secret in any answer or log line, nor sends it to the other's service", () => {
    const secrets = accounts.secrets();
    expect(secrets.length).toBeGreaterThan(4);
    for (const text of [...bodies, ...logs]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
    for (const { name, sim } of accounts.accounts) {
      const other = accounts.accounts.find((x) => x.name !== name)?.sim;
      if (!other) throw new Error("two accounts expected");
      const foreign = [other.options.apiKey, other.options.clientSecret, ...other.issuedTokens()];
      for (const request of sim.requests) {
        const wire = JSON.stringify(request);
        for (const value of foreign) expect(wire).not.toContain(value);
      }
    }
  });
});

describe("the verification timer with two accounts", () => {
  it("verifies each account, and each summary line names its account", async () => {
    const before = logs.length;
    await verifyCertificates(
      timer(),
      invocationContext("verifyCertificates", (_l, m) => logs.push(m)),
    );
    const summaries = logs
      .slice(before)
      .filter((l) => l.startsWith("certsched verification summary "))
      .map(
        (l) =>
          (JSON.parse(l.slice("certsched verification summary ".length)) as { account: string })
            .account,
      )
      .sort();
    expect(summaries).toEqual([A, B]);
  });
});

describe("one account, none declared", () => {
  it("takes ?account=default or none, and refuses another name listing 'default'", async () => {
    await configureApp({
      ...sandboxSettings(accounts.sim(B)),
      AzureWebJobsStorage: azurite.connectionString,
    });
    try {
      const plain = await get(testConnectivity, "connectivity");
      expect(plain.body).toEqual({ ok: true, account: "default", message: expect.any(String) });
      const named = await get(testConnectivity, "connectivity", { account: "default" });
      expect(named.body).toEqual(plain.body);
      // The due list is remembered in the default account's (legacy) tables.
      // fabrikam's www is still due (contoso's was renewed above).
      expect((await get(listDueCertificates, "certificates/due")).status).toBe(200);
      const list = await get(listCertificates, "certificates");
      const body = list.body as { items: { account: string }[]; accounts: { name: string }[] };
      expect(body.items.map((i) => i.account)).toEqual(["default"]);
      expect(body.accounts.map((a) => a.name)).toEqual(["default"]);
      const page = await get(dashboard, "dashboard");
      expect(page.text).not.toContain("data-account");
      expect(accountProblem(await get(testConnectivity, "connectivity", { account: A }))).toEqual([
        { name: "account", message: `'${A}' is unknown: the accounts are 'default'` },
      ]);
    } finally {
      await configureApp({ ...accounts.env(), AzureWebJobsStorage: azurite.connectionString });
    }
  });
});
