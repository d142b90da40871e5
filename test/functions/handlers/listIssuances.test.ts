import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listIssuances } from "../../../functions/listIssuances.js";
import type { Seams } from "../../../shared/app/seams.js";
import type { TransparencyStore } from "../../../shared/core/ports/transparency.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { configureApp, releaseApp, STACK_FRAME } from "../../support/app.js";
import { httpRequest, invocationContext } from "../../support/invoke.js";
import { expectedByKey, hoursAfter, pendingFor, seen, storeWith } from "../../support/issuances.js";
import { EASY_AUTH_ON, principalHeader } from "../../support/principals.js";
import { type Reply, toReply } from "../../support/reply.js";

/*
 * GET /api/issuances over two declared accounts, the issuances kept in memory through the
 * seam: every account's newest first as IssuanceView, the filters, the counts, the 400s naming
 * the parameter, the Reader role, rows not read as warnings, one account failing.
 */

const N = "north";
const S = "south";
let accounts: SimAccounts;
const logs: string[] = [];

const items = [
  seen({ account: N, id: "n-old", hours: 1, verdict: expectedByKey("www") }),
  seen({ account: N, id: "n-new", hours: 5 }),
  seen({
    account: N,
    id: "n-ack",
    hours: 3,
    acknowledged: { at: hoursAfter(4), by: "cli", reason: "our staging CA test" },
  }),
  seen({
    account: S,
    id: "s-pend",
    hours: 4,
    watched: "fabrikam.example",
    verdict: pendingFor("shop"),
    issuance: { revoked: true },
  }),
];

async function configure(
  transparency: TransparencyStore,
  many = true,
  extra: Record<string, string> = {},
): Promise<void> {
  const declared = accounts.declarations();
  const seams: Seams = { transparency, now: () => hoursAfter(10) };
  await configureApp(
    {
      CERTSCHED_ACCOUNTS: JSON.stringify(many ? declared : declared.slice(0, 1)),
      ...extra,
    },
    seams,
  );
}

beforeAll(async () => {
  accounts = await startSimAccounts([N, S]);
});
afterAll(async () => {
  await releaseApp();
  await accounts?.close();
});
afterEach(() => {
  // Nothing secret is ever logged or answered; and reading reaches no service.
  for (const secret of accounts.secrets()) {
    for (const line of logs) expect(line).not.toContain(secret);
  }
  for (const { sim } of accounts.accounts) expect(sim.requests).toEqual([]);
  logs.length = 0;
});

async function get(
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Reply> {
  const request = httpRequest({ method: "GET", path: "issuances", query, headers });
  const context = invocationContext("listIssuances", (_level, message) => logs.push(message));
  const reply = toReply(await listIssuances(request, context));
  logs.push(reply.text);
  return reply;
}

interface Listed {
  issuances: { account: string; id: string; state: string; [key: string]: unknown }[];
  counts: Record<string, number>;
  warnings?: string[];
  accountErrors?: { account: string }[];
}

const ids = (reply: Reply) => (reply.body as Listed).issuances.map((i) => `${i.account}/${i.id}`);

describe("GET /api/issuances", () => {
  it("answers every account's issuances, newest first, as IssuanceView, and the counts", async () => {
    await configure(await storeWith(items));
    const reply = await get();

    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(ids(reply)).toEqual([`${N}/n-new`, `${S}/s-pend`, `${N}/n-ack`, `${N}/n-old`]);
    const body = reply.body as Listed;
    expect(body.counts).toEqual({ expected: 1, pending: 1, unexpected: 1, acknowledged: 1 });
    expect(body.warnings).toBeUndefined();
    expect(body.issuances[0]).toEqual({
      account: N,
      id: "n-new",
      watched: "contoso.example",
      state: "unexpected",
      why: "no certificate certsched keeps has its public key",
      names: ["www.contoso.example"],
      moreNames: 0,
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      notBefore: "2026-11-20T07:00:00Z",
      notAfter: "2027-02-18T07:00:00Z",
      revoked: false,
      expired: false,
      firstSeenAt: "2026-11-20T13:00:00Z",
      link: `https://crt.sh/?sha256=${"a".repeat(64)}`,
      problems: [],
    });
    expect(body.issuances[1]).toMatchObject({ state: "pending", revoked: true });
    expect(body.issuances[2]).toMatchObject({
      state: "acknowledged",
      acknowledged: { at: "2026-11-20T12:00:00Z", by: "cli", reason: "our staging CA test" },
    });
  });

  it("narrows to an account, a state, a since; the counts follow what is listed", async () => {
    await configure(await storeWith(items));

    expect(ids(await get({ account: S }))).toEqual([`${S}/s-pend`]);
    const open = await get({ state: "unexpected" });
    expect(ids(open)).toEqual([`${N}/n-new`]);
    expect((open.body as Listed).counts).toEqual({
      expected: 0,
      pending: 0,
      unexpected: 1,
      acknowledged: 0,
    });
    expect(ids(await get({ since: "2026-11-20T11:30:00Z" }))).toEqual([
      `${N}/n-new`,
      `${S}/s-pend`,
    ]);
    // A duration back from now (T0 + 10 h): first seen in the last 6 hours.
    expect(ids(await get({ since: "6h", account: N }))).toEqual([`${N}/n-new`]);
    expect(ids(await get({ since: "2026-11-21" }))).toEqual([]);
  });

  it.each([
    [{ state: "open" }, "state", "must be one of expected, pending, unexpected, acknowledged"],
    [{ since: "yesterday" }, "since", "must be a date (2026-01-31)"],
    [{ since: "2026-02-30" }, "since", "must be a date (2026-01-31)"],
    [{ account: "west" }, "account", `'west' is unknown: the accounts are '${N}', '${S}'`],
    [{ sate: "unexpected" }, "sate", "is not a query parameter of this function"],
  ])("refuses %j with a 400 naming %s, no stack", async (query, name, message) => {
    await configure(await storeWith(items));
    const reply = await get(query);

    expect(reply.status).toBe(400);
    expect(reply.headers["content-type"]).toBe("application/problem+json");
    const { errors } = reply.body as { errors: { name: string; message: string }[] };
    expect(errors).toEqual([{ name, message: expect.stringContaining(message) }]);
    expect(reply.text).not.toMatch(STACK_FRAME);
  });

  it("behind Easy Auth: a Reader and an Operator read; another role is refused 403", async () => {
    await configure(await storeWith(items), true, EASY_AUTH_ON);
    const as = (roles: string[]) => ({
      "x-ms-client-principal": principalHeader({ name: "ada@contoso.example", roles }),
    });

    expect((await get({}, as([READER]))).status).toBe(200);
    expect((await get({}, as([OPERATOR]))).status).toBe(200);
    const refused = await get({}, as(["other.Role"]));
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("certsched.Reader");
    expect((refused.body as Listed).issuances).toBeUndefined();
  });

  it("rows the store could not read are warnings, named by account when several are listed", async () => {
    const store = await storeWith(items);
    const broken: TransparencyStore = {
      ...store,
      list: async (account, options) => {
        const read = await store.list(account, options);
        return { ...read, invalid: account === S ? ["row zz: firstSeenAt is not a date"] : [] };
      },
    };
    await configure(broken);

    const reply = await get();
    expect(ids(reply)).toHaveLength(4);
    expect((reply.body as Listed).warnings).toEqual([
      `account ${S}: row zz: firstSeenAt is not a date`,
    ]);
    expect((await get({ account: S })).body).toMatchObject({
      warnings: ["row zz: firstSeenAt is not a date"],
    });
  });

  it("one account unreadable: the other's issuances, and accountErrors naming it", async () => {
    const store = await storeWith(items);
    await configure({
      ...store,
      list: async (account, options) => {
        if (account === S) throw new Error("table timed out");
        return store.list(account, options);
      },
    });

    const reply = await get();
    expect(reply.status).toBe(200);
    expect(ids(reply)).toEqual([`${N}/n-new`, `${N}/n-ack`, `${N}/n-old`]);
    expect((reply.body as Listed).accountErrors).toEqual([
      expect.objectContaining({ account: S, status: 500 }),
    ]);
    expect(logs).toContainEqual(expect.stringContaining(`certsched account ${S} failed`));
  });

  it("one account declared: no account needed, and an empty store answers an empty list", async () => {
    await configure(await storeWith([]), false);
    const reply = await get();

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      issuances: [],
      counts: { expected: 0, pending: 0, unexpected: 0, acknowledged: 0 },
    });
  });
});
