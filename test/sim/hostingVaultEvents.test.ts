import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { probeTls } from "../../shared/adapters/probes/tlsProbe.js";
import { parseConnectTo } from "../../shared/core/verification/connectTo.js";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  type Hosting,
  SIM_EVENT_RESOURCE_GROUP,
  SIM_EVENT_SUBSCRIPTION,
  type Simulator,
  startSimulator,
} from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";
import { apiKeyHeader, post, tokens, v3Url } from "../support/simulator.js";

/**
 * The simulator's vault as an Event Grid system topic (sim/hosting/vaultEvents.ts): each new
 * version is POSTed to a real loopback webhook as Event Grid delivers Key Vault events.
 */

const START = "2026-05-10T08:00:00.000Z";
const SUB = "11111111-2222-4333-8444-555555555555";

interface Received {
  headers: IncomingHttpHeaders;
  body: unknown;
}
const received: Received[] = [];
let answer = 200;
let webhook: Server;
let url = "";
let sim: Simulator;
let hosting: Hosting;
const clock = fakeClock(START);

beforeAll(async () => {
  webhook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/runtime/webhooks/eventgrid?functionName=keyVaultEvents`;
  sim = await startSimulator({
    now: clock.now,
    completionDelayMs: 60_000,
    hosting: { events: { url } },
    certificates: [
      {
        certificateName: "kv-a",
        rootDomain: "a.events.test",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "KV-Events",
        cloudSubscriptionId: SUB,
        dnsZoneResourceGroup: "rg-dns",
        expiryDate: new Date(Date.parse(START) + 5 * DAY_MS),
      },
      {
        certificateName: "kv-b",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-events",
        expiryDate: new Date(Date.parse(START) + 50 * DAY_MS),
      },
    ],
  });
  hosting = sim.hosting as Hosting;
});

afterAll(async () => {
  await sim.close();
  await new Promise<void>((resolve) => webhook.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
  answer = 200;
  hosting.vault.setEvents({ url });
});

const events = (i = 0) => received[i]?.body as Record<string, unknown>[];

describe("the simulator's vault sends Key Vault events", () => {
  it("sends nothing for the versions present at start", async () => {
    await hosting.vault.eventsSettled();
    expect(received).toEqual([]);
    expect(hosting.vault.deliveries).toEqual([]);
  });

  it("a renewal landing at the service: CertificateNewVersionCreated as Event Grid delivers it", async () => {
    const tok = await tokens(sim);
    const reply = await post(v3Url(sim, "renew"), {
      json: { certificateName: "kv-a", accessToken: tok.management },
      headers: apiKeyHeader(sim),
    });
    expect(reply.status).toBe(200);
    clock.advance(61_000);
    sim.certificates();
    await hosting.vault.eventsSettled();
    expect(received).toHaveLength(1);
    expect(received[0]?.headers["aeg-event-type"]).toBe("Notification");
    expect(received[0]?.headers["content-type"]).toMatch(/^application\/json/);
    const current = hosting.vault.versions("kv-events", "kv-a").at(-1);
    const renewed = sim.certificates().find((c) => c.certificateName === "kv-a");
    expect(events()).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        topic: `/subscriptions/${SUB}/resourceGroups/rg-dns/providers/Microsoft.KeyVault/vaults/kv-events`,
        subject: "kv-a",
        eventType: "Microsoft.KeyVault.CertificateNewVersionCreated",
        eventTime: expect.any(String),
        data: {
          Id: `https://kv-events.vault.azure.net/certificates/kv-a/${current?.version}`,
          VaultName: "kv-events",
          ObjectType: "Certificate",
          ObjectName: "kv-a",
          Version: current?.version,
          NBF: Math.floor((renewed?.issueDate.getTime() ?? 0) / 1000),
          EXP: Math.floor((renewed?.expiryDate.getTime() ?? 0) / 1000),
        },
        dataVersion: "1",
        metadataVersion: "1",
      },
    ]);
    expect(hosting.vault.deliveries.at(-1)).toEqual({
      url,
      schema: "eventgrid",
      eventIds: [events()[0]?.id],
      status: 200,
    });
  });

  it("a version added: a fresh id each time, fixed subscription and group when the certificate names none", async () => {
    const dates = { notBefore: clock.now(), notAfter: new Date(clock.now().getTime() + DAY_MS) };
    const first = hosting.vault.addVersion("kv-events", "kv-b", dates);
    const second = hosting.vault.addVersion("KV-EVENTS", "KV-B", dates);
    await hosting.vault.eventsSettled();
    const all = received.flatMap((r) => r.body as Record<string, unknown>[]);
    expect(all.map((e) => (e.data as { Version: string }).Version)).toEqual([
      first.version,
      second.version,
    ]);
    expect(new Set(all.map((e) => e.id)).size).toBe(2);
    expect(all[0]?.topic).toBe(
      `/subscriptions/${SIM_EVENT_SUBSCRIPTION}/resourceGroups/${SIM_EVENT_RESOURCE_GROUP}/providers/Microsoft.KeyVault/vaults/kv-events`,
    );
    expect(hosting.vault.versions("kv-events", "kv-b").at(-1)?.version).toBe(second.version);
    expect(() => hosting.vault.addVersion("kv-events", "nope", dates)).toThrow(/no Key Vault/);
  });

  it("a certificate created since start: its first version's event, at its first read", async () => {
    sim.addCertificate({
      certificateName: "kv-new",
      rootDomain: "new.events.test",
      target: "Cloud Key Vault + DNS",
      keyVaultName: "kv-events",
      expiryDate: new Date(clock.now().getTime() + 90 * DAY_MS),
    });
    const probe = await probeTls(
      { host: "new.events.test", port: 443 },
      { connectTo: parseConnectTo(hosting.connectTo), timeoutMs: 10_000, ca: [hosting.caPem] },
    );
    expect(probe.reached).toBe(true);
    await hosting.vault.eventsSettled();
    const [event] = events();
    expect(event).toMatchObject({
      subject: "kv-new",
      eventType: "Microsoft.KeyVault.CertificateNewVersionCreated",
      data: { Version: hosting.vault.versions("kv-events", "kv-new").at(-1)?.version },
    });
  });

  it("staged versions: one event each, in order, naming each version", async () => {
    const at = clock.now().getTime();
    const staged = [0, 1].map((i) => ({
      notBefore: new Date(at - (2 - i) * DAY_MS),
      notAfter: new Date(at + (10 + i) * DAY_MS),
      created: new Date(at - (2 - i) * DAY_MS),
    }));
    hosting.vault.stageVersions("kv-events", "kv-b", staged);
    await hosting.vault.eventsSettled();
    const all = received.flatMap((r) => r.body as { data: { Version: string; EXP: number } }[]);
    const versions = hosting.vault.versions("kv-events", "kv-b").map((v) => v.version);
    expect(all.map((e) => e.data.Version).sort()).toEqual([...versions].sort());
    expect(all.map((e) => e.data.EXP).sort()).toEqual(
      staged.map((v) => Math.floor(v.notAfter.getTime() / 1000)),
    );
  });

  it("CloudEvents 1.0 when asked: a batch, source the topic, type the event type", async () => {
    hosting.vault.setEvents({ url, schema: "cloudevents" });
    await hosting.vault.emitExpiry("kv-events", "kv-b", "near-expiry");
    expect(received[0]?.headers["content-type"]).toMatch(/^application\/cloudevents-batch\+json/);
    const [event] = events();
    expect(event).toMatchObject({
      specversion: "1.0",
      source: `/subscriptions/${SIM_EVENT_SUBSCRIPTION}/resourceGroups/${SIM_EVENT_RESOURCE_GROUP}/providers/Microsoft.KeyVault/vaults/kv-events`,
      subject: "kv-b",
      type: "Microsoft.KeyVault.CertificateNearExpiry",
      data: { ObjectName: "kv-b", ObjectType: "Certificate", VaultName: "kv-events" },
    });
    await hosting.vault.emitExpiry("kv-events", "kv-b", "expired");
    expect((events(1)[0] as { type: string }).type).toBe("Microsoft.KeyVault.CertificateExpired");
  });

  it("a failed delivery is recorded, never thrown: a refusal with its status, a closed port with why", async () => {
    answer = 500;
    await hosting.vault.emitExpiry("kv-events", "kv-b", "expired");
    expect(hosting.vault.deliveries.at(-1)?.status).toBe(500);
    hosting.vault.setEvents({ url: "http://127.0.0.1:1/nowhere" });
    await hosting.vault.emitExpiry("kv-events", "kv-b", "expired");
    const last = hosting.vault.deliveries.at(-1);
    expect(last?.status).toBeUndefined();
    expect(last?.error).toBeTruthy();
    hosting.vault.setEvents(undefined);
    const before = hosting.vault.deliveries.length;
    await hosting.vault.emitExpiry("kv-events", "kv-b", "expired");
    expect(hosting.vault.deliveries.length).toBe(before);
    expect(() => hosting.vault.setEvents({ url: "file:///etc/passwd" })).toThrow(/http/);
  });
});
