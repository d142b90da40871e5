import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { watchTransparency } from "../../../functions/watchTransparency.js";
import { memoryTransparencyStore } from "../../../shared/adapters/storage/memory/memoryTransparency.js";
import { type History, memoryHistory } from "../../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import type { TransparencyStore } from "../../../shared/core/ports/transparency.js";
import { TransparencyAlertError } from "../../../shared/lib/errors.js";
import {
  type CertSpotterSimulator,
  startCertSpotter,
} from "../../../sim/transparency/certSpotterServer.js";
import { issuanceFromCertificate } from "../../../sim/transparency/issuances.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { configureApp, releaseApp } from "../../support/app.js";
import { makeCa, makeLeaf } from "../../support/certificates.js";
import { invocationContext, timer } from "../../support/invoke.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/*
 * The Certificate Transparency timer over two declared accounts: the simulated Cert Spotter, the
 * issuances in memory, a real webhook. One account's failure never stops the other's watch; the
 * run fails afterwards naming both; the API key never reaches a log line or a message.
 */

const N = "north";
const S = "south";
const KEY = `ct-key-${randomBytes(12).toString("hex")}`;
const NOW = new Date();
const ca = makeCa("Handler CT CA", new Date(NOW.getTime() - 86_400_000));
const leaf = makeLeaf(ca, {
  names: ["pay.north.example"],
  notBefore: new Date(NOW.getTime() - 3_600_000),
  notAfter: new Date(NOW.getTime() + 30 * 86_400_000),
});

let accounts: SimAccounts;
let ct: CertSpotterSimulator;
let receiver: Receiver;
let store: TransparencyStore;
let histories: Map<string, History>;
const logs: string[] = [];

beforeAll(async () => {
  accounts = await startSimAccounts([N, S]);
  receiver = await startReceiver();
});
afterAll(async () => {
  await releaseApp();
  await accounts?.close();
  await receiver?.close();
});
beforeEach(async () => {
  ct = await startCertSpotter({ apiKey: KEY });
  logs.length = 0;
});
afterEach(async () => {
  await ct.close();
});

async function configure(south: Inventory, kept?: TransparencyStore): Promise<void> {
  store = kept ?? memoryTransparencyStore();
  histories = new Map([N, S].map((a) => [a, memoryHistory()]));
  const north = memoryInventory();
  await north.upsert([
    { certificateName: "www-north", rootDomain: "north.example", source: "due-list", seenAt: NOW },
  ]);
  await configureApp(
    {
      CERTSCHED_ACCOUNTS: JSON.stringify(accounts.declarations()),
      CERTSCHED_CT_WATCH: "true",
      CERTSCHED_CT_URL: ct.url,
      CERTSCHED_CT_API_KEY: KEY,
      CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
      CERTSCHED_WEBHOOK_FORMAT: "json",
    },
    {
      transparency: store,
      inventory: (account) => (account === N ? north : south),
      history: (account) => histories.get(account) ?? memoryHistory(),
    },
  );
}

const context = () =>
  invocationContext("watchTransparency", (_level, message) => logs.push(message));

describe("the Certificate Transparency timer", () => {
  it("watches every account; one that fails is named, the other's unexpected issuance announced once", async () => {
    const broken = memoryInventory();
    await configure({
      ...broken,
      list: async () => Promise.reject(new Error("the table is gone")),
    });
    ct.add(
      issuanceFromCertificate(leaf.cert, {
        tbsSha256: "1".repeat(64),
        pubkeySha256: "2".repeat(64),
      }),
    );

    const failure = await watchTransparency(timer(), context()).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(failure).toBeInstanceOf(TransparencyAlertError);
    const problems = (failure as TransparencyAlertError).problems;
    expect(problems).toEqual([
      expect.stringMatching(
        /^account north: unexpected issuance \d+ for "north\.example" of account "north": pay\.north\.example by /,
      ),
      expect.stringMatching(/^account south: the watch failed: the table is gone/),
    ]);
    expect(
      logs.filter((l) => l.startsWith("certsched ct alert: unexpected issuance ")),
    ).toHaveLength(1);
    expect(logs.some((l) => l.startsWith('certsched ct summary: account "north": 1 names'))).toBe(
      true,
    );
    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { event?: string });
    expect(bodies.map((b) => b.event)).toEqual(["issuance"]);
    expect(JSON.stringify([logs, receiver.received])).not.toContain(KEY);
    // North's name only, paged until the empty page; south's inventory could not be read.
    const id = ct.issuances()[0]?.id;
    expect(ct.requests.map((r) => [r.query.domain?.[0], r.query.after?.[0]])).toEqual([
      ["north.example", ""],
      ["north.example", id],
    ]);

    // The next run reads after the cursor and announces nothing again.
    await configure(memoryInventory(), store);
    await watchTransparency(timer(), context());
    expect(receiver.received).toHaveLength(1);
  });
});
