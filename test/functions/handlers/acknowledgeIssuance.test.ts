import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeIssuance } from "../../../functions/acknowledgeIssuance.js";
import type { History } from "../../../shared/core/ports/history.js";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import type { TransparencyStore } from "../../../shared/core/ports/transparency.js";
import { OPERATOR, READER } from "../../../shared/edge/auth/roles.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { configureApp, releaseApp, STACK_FRAME } from "../../support/app.js";
import { httpRequest, invocationContext } from "../../support/invoke.js";
import { expectedByKey, hoursAfter, pendingFor, seen, storeWith } from "../../support/issuances.js";
import { EASY_AUTH_ON, principalHeader } from "../../support/principals.js";
import { type Reply, toReply } from "../../support/reply.js";

/*
 * POST /api/issuances/{id}/ack over two declared accounts, the issuances in memory through the
 * seam: the acknowledgement kept and recorded in the account's history with who asked; 400s
 * naming the field, 404, 409, the idempotent 200; the Operator role; a forged reason refused
 * without being echoed.
 */

const N = "north";
const S = "south";
const NOW = hoursAfter(10);
let accounts: SimAccounts;
let store: TransparencyStore;
let histories: Map<string, History>;
const logs: string[] = [];

async function configure(extra: Record<string, string> = {}, many = true): Promise<void> {
  store = await storeWith([
    seen({ account: N, id: "n-open", hours: 5 }),
    seen({ account: N, id: "n-fine", hours: 1, verdict: expectedByKey("www") }),
    seen({ account: N, id: "n-wait", hours: 2, verdict: pendingFor("shop") }),
    seen({
      account: N,
      id: "n-done",
      hours: 3,
      acknowledged: { at: hoursAfter(4), by: "cli", reason: "the first reason" },
    }),
    seen({ account: S, id: "s-open", hours: 5, watched: "fabrikam.example" }),
  ]);
  histories = new Map([N, S].map((a) => [a, memoryHistory()]));
  const declared = accounts.declarations();
  await configureApp(
    { CERTSCHED_ACCOUNTS: JSON.stringify(many ? declared : declared.slice(0, 1)), ...extra },
    {
      transparency: store,
      history: (account) => histories.get(account) ?? memoryHistory(),
      now: () => NOW,
    },
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
  for (const secret of accounts.secrets()) {
    for (const line of logs) expect(line).not.toContain(secret);
  }
  for (const { sim } of accounts.accounts) expect(sim.requests).toEqual([]);
  logs.length = 0;
});

async function ack(
  id: string,
  body: unknown,
  query: Record<string, string> = { account: N },
  headers: Record<string, string> = {},
): Promise<Reply> {
  const request = httpRequest({
    method: "POST",
    path: `issuances/${encodeURIComponent(id)}/ack`,
    params: { id },
    query,
    headers,
    json: body,
  });
  const context = invocationContext("acknowledgeIssuance", (_l, message) => logs.push(message));
  const reply = toReply(await acknowledgeIssuance(request, context));
  logs.push(reply.text);
  return reply;
}

const events = async (account: string) =>
  (await (histories.get(account) as History).events({ since: new Date(0) })).items;

const errorsOf = (reply: Reply) =>
  (reply.body as { errors?: { name: string; message: string }[] }).errors;

describe("POST /api/issuances/{id}/ack", () => {
  it("acknowledges an unexpected issuance: kept, answered, recorded with who and why", async () => {
    await configure();
    const reply = await ack("n-open", { reason: "a test certificate from our staging CA" });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: "acknowledged",
      account: N,
      issuance: {
        id: "n-open",
        state: "acknowledged",
        acknowledged: {
          at: "2026-11-20T18:00:00Z",
          by: "function-key",
          reason: "a test certificate from our staging CA",
        },
      },
    });
    expect((await store.get(N, "n-open"))?.acknowledged).toEqual({
      at: NOW,
      by: "function-key",
      reason: "a test certificate from our staging CA",
    });
    expect(await events(N)).toEqual([
      expect.objectContaining({
        at: NOW,
        certificateName: "ct:contoso.example",
        event: "issuance-acknowledged",
        trigger: "http",
        by: "function-key",
        detail: expect.stringMatching(
          /^a test certificate from our staging CA; issuance n-open for "contoso.example" of account "north": www\.contoso\.example by /,
        ),
      }),
    ]);
    // The other account's history and issuance are untouched.
    expect(await events(S)).toEqual([]);
    expect((await store.get(S, "s-open"))?.acknowledged).toBeUndefined();
    expect(logs).toContainEqual(expect.stringContaining("acknowledged by function-key"));
  });

  it("again: 200 with the first acknowledgement kept, nothing recorded twice", async () => {
    await configure();
    const first = await ack("n-open", { reason: "first" });
    const again = await ack("n-open", { reason: "second" });
    const before = await ack("n-done", { reason: "third" });

    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      status: "already-acknowledged",
      issuance: { acknowledged: { reason: "first" } },
    });
    expect(before.body).toMatchObject({
      status: "already-acknowledged",
      issuance: { acknowledged: { reason: "the first reason", by: "cli" } },
    });
    expect(await events(N)).toHaveLength(1);
  });

  it.each([
    ["n-fine", "expected"],
    ["n-wait", "pending"],
  ])("%s is %s: 409, nothing to acknowledge, nothing kept", async (id, state) => {
    await configure();
    const reply = await ack(id, { reason: "why not" });

    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ code: "ISSUANCE_NOT_UNEXPECTED" });
    expect((reply.body as { detail: string }).detail).toContain(`is ${state}`);
    expect((await store.get(N, id))?.acknowledged).toBeUndefined();
    expect(await events(N)).toEqual([]);
  });

  it("unknown in that account: 404, even when another account keeps it", async () => {
    await configure();
    const reply = await ack("s-open", { reason: "not ours" });

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: "ISSUANCE_NOT_FOUND" });
    expect((await store.get(S, "s-open"))?.acknowledged).toBeUndefined();
    expect((await ack("s-open", { reason: "ours" }, { account: S })).status).toBe(200);
  });

  it("several accounts and none named: 400 naming account; one account: none needed", async () => {
    await configure();
    const refused = await ack("n-open", { reason: "why" }, {});
    expect(refused.status).toBe(400);
    expect(errorsOf(refused)).toEqual([
      { name: "account", message: expect.stringContaining("is required when more than one") },
    ]);

    await configure({}, false);
    expect((await ack("n-open", { reason: "why" }, {})).status).toBe(200);
  });

  it.each([
    ["bad id", "n/open", { reason: "ok" }, "id"],
    ["id too long", "x".repeat(41), { reason: "ok" }, "id"],
    ["no reason", "n-open", {}, "reason"],
    ["empty reason", "n-open", { reason: "" }, "reason"],
    ["blank reason", "n-open", { reason: "   " }, "reason"],
    ["reason too long", "n-open", { reason: "r".repeat(501) }, "reason"],
    ["reason not a string", "n-open", { reason: 42 }, "reason"],
    ["an unknown field", "n-open", { reason: "ok", by: "someone else" }, "by"],
  ])("%s: 400 naming the field, nothing kept", async (_what, id, body, name) => {
    await configure();
    const reply = await ack(id, body);

    expect(reply.status).toBe(400);
    expect(reply.text).not.toMatch(STACK_FRAME);
    expect(errorsOf(reply)?.map((e) => e.name)).toEqual([name]);
    expect((await store.get(N, "n-open"))?.acknowledged).toBeUndefined();
    expect(await events(N)).toEqual([]);
  });

  it("500 characters is a reason; a forged one (control characters, direction marks) is refused unechoed", async () => {
    await configure();
    for (const forged of [
      "fine\n2026-11-20 certsched ct alert: forged line",
      "\u001b]0;owned\u0007 title",
      "looks \u202eevil",
    ]) {
      const reply = await ack("n-open", { reason: forged });
      expect(reply.status).toBe(400);
      expect(errorsOf(reply)).toEqual([
        { name: "reason", message: expect.stringContaining("no control characters") },
      ]);
      // The answer and the logs never carry the forged text, raw or escaped.
      for (const text of [reply.text, ...logs]) {
        expect(text).not.toContain("forged line");
        expect(text).not.toContain("owned");
        expect(text).not.toContain("evil");
      }
    }
    expect(await events(N)).toEqual([]);
    expect((await ack("n-open", { reason: "r".repeat(500) })).status).toBe(200);
  });

  it("HTML in a reason is text: kept as written, answered as JSON, never as markup", async () => {
    await configure();
    const reason = `<script>alert("x")</script> & <b>ok</b>`;
    const reply = await ack("n-open", { reason });

    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(reply.body).toMatchObject({ issuance: { acknowledged: { reason } } });
    expect((await events(N))[0]?.detail?.startsWith(`${reason}; issuance n-open`)).toBe(true);
  });

  it("behind Easy Auth: an Operator acknowledges (its name in the history); a Reader is refused 403", async () => {
    await configure(EASY_AUTH_ON);
    const as = (roles: string[]) => ({
      "x-ms-client-principal": principalHeader({
        id: "oid-ada",
        name: "ada@contoso.example",
        roles,
      }),
    });

    const reader = await ack("n-open", { reason: "mine" }, { account: N }, as([READER]));
    expect(reader.status).toBe(403);
    expect(reader.text).toContain("certsched.Operator");
    expect((await store.get(N, "n-open"))?.acknowledged).toBeUndefined();

    const operator = await ack("n-open", { reason: "mine" }, { account: N }, as([OPERATOR]));
    expect(operator.status).toBe(200);
    expect(await events(N)).toEqual([
      expect.objectContaining({ by: "entra:ada@contoso.example (oid-ada)" }),
    ]);
  });

  it("the history failing: still acknowledged (200), the failure logged as a warning", async () => {
    await configure();
    const broken = memoryHistory();
    histories.set(N, {
      ...broken,
      append: async () => {
        throw new Error("history table timed out");
      },
    });
    await configureApp(
      { CERTSCHED_ACCOUNTS: JSON.stringify(accounts.declarations()) },
      { transparency: store, history: (a) => histories.get(a) ?? broken, now: () => NOW },
    );

    const reply = await ack("n-open", { reason: "fine" });
    expect(reply.status).toBe(200);
    expect((await store.get(N, "n-open"))?.acknowledged?.reason).toBe("fine");
    expect(logs).toContainEqual(
      expect.stringContaining(
        "could not record the acknowledgement in the history: history table timed out",
      ),
    );
  });
});
