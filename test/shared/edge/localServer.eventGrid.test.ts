import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  EVENT_GRID_WEBHOOK,
  type LocalServer,
  MAX_EVENT_GRID_BODY,
  startLocalServer,
} from "../../../shared/edge/localServer.js";

/*
 * The loopback server takes Event Grid deliveries as the Functions host does for an Event Grid
 * trigger: over real HTTP, the system key checked, one invocation per event.
 */

const KEY = "system-key";
const calls: { event: unknown; functionName: string; invocationId: string }[] = [];
let failOn: string | undefined;
let server: LocalServer;

beforeAll(async () => {
  server = await startLocalServer({
    functionKey: KEY,
    routes: {},
    eventGrid: {
      keyVaultEvents: async (event, context) => {
        calls.push({
          event,
          functionName: context.functionName,
          invocationId: context.invocationId,
        });
        if ((event as { id?: string }).id === failOn) throw new Error("handler failed");
      },
    },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  calls.length = 0;
  failOn = undefined;
});

const hook = (query = `functionName=keyVaultEvents&code=${KEY}`) =>
  `${server.origin}${EVENT_GRID_WEBHOOK}?${query}`;

function deliver(
  body: string,
  kind = "Notification",
  url = hook(),
  headers: Record<string, string> = {},
) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "aeg-event-type": kind, ...headers },
    body,
  });
}

const events = (...ids: string[]) =>
  JSON.stringify(ids.map((id) => ({ id, eventType: "Microsoft.KeyVault.CertificateExpired" })));

describe("the local server's Event Grid webhook", () => {
  it("hands each event of a notification to the function, one invocation each, in order: 200", async () => {
    const response = await deliver(events("a", "b", "c"));
    expect(response.status).toBe(200);
    expect(calls.map((c) => (c.event as { id: string }).id)).toEqual(["a", "b", "c"]);
    expect(calls.every((c) => c.functionName === "keyVaultEvents")).toBe(true);
    expect(new Set(calls.map((c) => c.invocationId)).size).toBe(3);
  });

  it("takes the key in x-functions-key too; no key or a wrong one is 401 and invokes nothing", async () => {
    const byHeader = await deliver(
      events("h"),
      "Notification",
      hook("functionName=keyVaultEvents"),
      {
        "x-functions-key": KEY,
      },
    );
    const none = await deliver(events("n"), "Notification", hook("functionName=keyVaultEvents"));
    const wrong = await deliver(
      events("w"),
      "Notification",
      hook("functionName=keyVaultEvents&code=nope"),
    );
    expect([byHeader.status, none.status, wrong.status]).toEqual([200, 401, 401]);
    expect(calls.map((c) => (c.event as { id: string }).id)).toEqual(["h"]);
  });

  it("answers a subscription's validation with its code, invoking nothing", async () => {
    const body = JSON.stringify([
      {
        id: "v",
        eventType: "Microsoft.EventGrid.SubscriptionValidationEvent",
        data: { validationCode: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6" },
      },
    ]);
    const response = await deliver(body, "SubscriptionValidation");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      validationResponse: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6",
    });
    expect(calls).toEqual([]);
    const noCode = await deliver("[{}]", "SubscriptionValidation");
    expect(noCode.status).toBe(400);
  });

  it("CloudEvents: the OPTIONS validation allows the origin that asks (with the key); a batch is handed over event by event", async () => {
    const ask = (url: string) =>
      fetch(url, {
        method: "OPTIONS",
        headers: { "webhook-request-origin": "eventgrid.azure.net" },
      });
    const allowed = await ask(hook());
    const refused = await ask(hook("functionName=keyVaultEvents"));
    expect([allowed.status, refused.status]).toEqual([200, 401]);
    expect(allowed.headers.get("webhook-allowed-origin")).toBe("eventgrid.azure.net");
    const batch = JSON.stringify([
      { specversion: "1.0", id: "c1", type: "Microsoft.KeyVault.CertificateExpired" },
      { specversion: "1.0", id: "c2", type: "Microsoft.KeyVault.CertificateExpired" },
    ]);
    const response = await deliver(batch, "Notification", hook(), {
      "content-type": "application/cloudevents-batch+json; charset=utf-8",
    });
    expect(response.status).toBe(200);
    expect(calls.map((c) => (c.event as { id: string }).id)).toEqual(["c1", "c2"]);
  });

  it("500 when one invocation threw (Event Grid delivers again), the others still invoked", async () => {
    failOn = "b";
    const response = await deliver(events("a", "b", "c"));
    expect(response.status).toBe(500);
    expect(calls).toHaveLength(3);
  });

  it("malformed JSON 400, a body over 1 MiB 413, neither invoking anything", async () => {
    const malformed = await deliver('[{"id": "a"');
    const big = await deliver(JSON.stringify([{ id: "x".repeat(MAX_EVENT_GRID_BODY) }]));
    expect([malformed.status, big.status]).toEqual([400, 413]);
    expect(calls).toEqual([]);
  });

  it("an unknown function (or a name of Object's prototype) is 404; GET is 405; no aeg-event-type is 400", async () => {
    const statuses = [
      (await deliver(events("a"), "Notification", hook(`functionName=other&code=${KEY}`))).status,
      (await deliver(events("a"), "Notification", hook(`functionName=__proto__&code=${KEY}`)))
        .status,
      (await deliver(events("a"), "Notification", hook(`functionName=constructor&code=${KEY}`)))
        .status,
      (await fetch(hook())).status,
      (await deliver(events("a"), "")).status,
    ];
    expect(statuses).toEqual([404, 404, 404, 405, 400]);
    expect(calls).toEqual([]);
  });
});
