import { TableClient, type TransactionAction } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import {
  issuancePartition,
  toIssuanceRow,
  WATCHER_PARTITION,
} from "../../../../shared/adapters/storage/rows/issuanceRow.js";
import {
  createTableTransparencyStore,
  MAX_LISTED,
  NOTICE_CLAIM_MS,
  TRANSPARENCY_TABLE,
} from "../../../../shared/adapters/storage/tableTransparency.js";
import type { TransparencyStore } from "../../../../shared/core/ports/transparency.js";
import type {
  Issuance,
  IssuanceVerdict,
  SeenIssuance,
} from "../../../../shared/core/transparency/issuance.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { uniqueTableName } from "../../../support/app.js";

const T = new Date("2026-11-23T03:00:00.000Z");
const at = (ms: number) => new Date(T.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const HEX = (c: string) => c.repeat(64);

const unexpected: IssuanceVerdict = { kind: "unexpected", since: T, why: "nothing certsched did" };

const issuance = (id: string, more: Partial<Issuance> = {}): Issuance => ({
  id,
  dnsNames: ["www.contoso.com"],
  moreNames: 0,
  revoked: false,
  problems: [],
  ...more,
});

const seen = (id: string, more: Partial<SeenIssuance> = {}): SeenIssuance => ({
  account: "default",
  issuance: issuance(id),
  watched: "contoso.com",
  firstSeenAt: T,
  verdict: unexpected,
  ...more,
});

/**
 * The store's rules, for any TransparencyStore: `make` gives a fresh, empty one. The table's
 * suite runs them below; the in-memory store can run the same.
 */
function transparencyStoreCases(kind: string, make: () => TransparencyStore): void {
  describe(`${kind} transparency store`, () => {
    it("keeps a cursor per account and watched name; none until set", async () => {
      const store = make();
      expect(await store.cursor("default", "contoso.com")).toBeUndefined();
      await store.setCursor("default", "contoso.com", "1001");
      await store.setCursor("default", "fabrikam.com", "2002");
      await store.setCursor("other", "contoso.com", "3003");
      await store.setCursor("default", "contoso.com", "1005");
      expect(await store.cursor("default", "contoso.com")).toBe("1005");
      expect(await store.cursor("default", "fabrikam.com")).toBe("2002");
      expect(await store.cursor("other", "contoso.com")).toBe("3003");
      // A name longer than a key holds: its own cursor all the same.
      const long = `${"a".repeat(600)}.contoso.com`;
      await store.setCursor("default", long, "4004");
      expect(await store.cursor("default", long)).toBe("4004");
      expect(await store.cursor("default", `${"a".repeat(600)}.contoso.net`)).toBeUndefined();
    });

    it("adds each id once per account; an id stored already keeps its verdict and notifiedAt", async () => {
      const store = make();
      const first = [seen("1"), seen("2", { notifiedAt: at(MINUTE) })];
      expect((await store.addNew(first)).map((s) => s.issuance.id)).toEqual(["1", "2"]);
      const again = [
        seen("2", {
          verdict: { kind: "pending", certificateName: "www", sentAt: T, until: at(HOUR) },
        }),
        seen("3"),
        seen("3"),
        seen("2", { account: "other" }),
      ];
      const added = await store.addNew(again);
      expect(added.map((s) => [s.account, s.issuance.id])).toEqual([
        ["default", "3"],
        ["other", "2"],
      ]);
      const kept = await store.get("default", "2");
      expect(kept?.verdict).toEqual(unexpected);
      expect(kept?.notifiedAt).toEqual(at(MINUTE));
      expect(await store.addNew([])).toEqual([]);
    });

    it("gives back every field it was given", async () => {
      const store = make();
      const full = seen("Ab_-9", {
        issuance: issuance("Ab_-9", {
          tbsSha256: HEX("a"),
          certSha256: HEX("b"),
          pubkeySha256: HEX("c"),
          notBefore: at(-HOUR),
          notAfter: at(90 * 24 * HOUR),
          dnsNames: ["contoso.com", "*.contoso.com"],
          moreNames: 3,
          issuer: "C=US, O=Let's Encrypt, CN=R11",
          revoked: true,
          revokedAt: at(HOUR),
          problems: ["not_after is not a date"],
        }),
        verdict: {
          kind: "expected",
          because: "public-key",
          certificateName: "www",
          where: "vault",
        },
        notifiedAt: at(2 * MINUTE),
        acknowledged: { at: at(3 * MINUTE), by: "cli", reason: "ours, from the old pipeline" },
      });
      await store.addNew([full]);
      expect(await store.get("default", "Ab_-9")).toEqual(full);
      expect(await store.get("default", "missing")).toBeUndefined();
      expect(await store.get("other", "Ab_-9")).toBeUndefined();
    });

    it("lists an account's issuances newest first; since: first seen at or after", async () => {
      const store = make();
      await store.addNew([
        seen("old", { firstSeenAt: at(-HOUR) }),
        seen("new", { firstSeenAt: at(HOUR) }),
        seen("now", { firstSeenAt: T }),
        seen("theirs", { account: "other" }),
      ]);
      const all = await store.list("default");
      expect(all.invalid).toEqual([]);
      expect(all.items.map((s) => s.issuance.id)).toEqual(["new", "now", "old"]);
      const since = await store.list("default", { since: T });
      expect(since.items.map((s) => s.issuance.id)).toEqual(["new", "now"]);
      expect((await store.list("nobody")).items).toEqual([]);
    });

    it("replaces a verdict; a verdict for no issuance is nothing", async () => {
      const store = make();
      await store.addNew([seen("1")]);
      const verdict: IssuanceVerdict = {
        kind: "expected",
        because: "request",
        certificateName: "www",
        sentAt: at(-MINUTE),
      };
      await store.setVerdict("default", "1", verdict);
      await store.setVerdict("default", "absent", verdict);
      expect((await store.get("default", "1"))?.verdict).toEqual(verdict);
      expect(await store.get("default", "absent")).toBeUndefined();
    });

    it("gives an issuance's message to one claim at a time, until it is marked sent", async () => {
      const store = make();
      await store.addNew([seen("1")]);
      expect(await store.claimNotice("default", "1", T)).toBe(true);
      expect(await store.claimNotice("default", "1", at(MINUTE))).toBe(false);
      // A sender that failed gives the claim back.
      await store.releaseNotice("default", "1");
      expect(await store.claimNotice("default", "1", at(2 * MINUTE))).toBe(true);
      // A sender that died: its claim expires.
      expect(await store.claimNotice("default", "1", at(2 * MINUTE + NOTICE_CLAIM_MS - 1))).toBe(
        false,
      );
      expect(await store.claimNotice("default", "1", at(2 * MINUTE + NOTICE_CLAIM_MS))).toBe(true);
      await store.markNotified("default", "1", at(20 * MINUTE));
      expect((await store.get("default", "1"))?.notifiedAt).toEqual(at(20 * MINUTE));
      expect(await store.claimNotice("default", "1", at(24 * HOUR))).toBe(false);
      expect(await store.claimNotice("default", "absent", T)).toBe(false);
      expect(await store.claimNotice("other", "1", T)).toBe(false);
    });

    it("keeps an acknowledgement and answers the issuance; undefined for none", async () => {
      const store = make();
      await store.addNew([seen("1")]);
      const ack = { at: at(MINUTE), by: "entra:Ada (0000)", reason: "the staging team's" };
      const acknowledged = await store.acknowledge("default", "1", ack);
      expect(acknowledged).toEqual({ ...seen("1"), acknowledged: ack });
      expect(await store.get("default", "1")).toEqual(acknowledged);
      expect(await store.acknowledge("default", "absent", ack)).toBeUndefined();
    });

    it("counts requests per key name and UTC hour; none left: false", async () => {
      const store = make();
      const taken = [];
      for (let i = 0; i < 4; i++) taken.push(await store.takeRequest("key", at(i * MINUTE), 3));
      expect(taken).toEqual([true, true, true, false]);
      expect(await store.takeRequest("another key", at(5 * MINUTE), 3)).toBe(true);
      // The next hour starts on the UTC hour.
      expect(await store.takeRequest("key", at(HOUR - 1), 3)).toBe(false);
      expect(await store.takeRequest("key", at(HOUR), 3)).toBe(true);
      expect(await store.takeRequest("key", at(HOUR), 0)).toBe(false);
    });

    it("keeps a pause and its reason per key name", async () => {
      const store = make();
      expect(await store.watcherState("key")).toEqual({});
      await store.takeRequest("key", T, 100);
      await store.pause("key", at(HOUR), "429: allowance used up");
      expect(await store.watcherState("key")).toEqual({
        pausedUntil: at(HOUR),
        reason: "429: allowance used up",
      });
      expect(await store.watcherState("another key")).toEqual({});
      // The pause leaves the hour's count as it was.
      expect(await store.takeRequest("key", T, 2)).toBe(true);
      expect(await store.takeRequest("key", T, 2)).toBe(false);
    });
  });
}

const connectionString = () => inject("azuriteTableConnectionString");

function onTable(tableName = uniqueTableName("ct")) {
  return createTableTransparencyStore({
    connectionString: connectionString(),
    tableName,
    timeoutMs: 10_000,
  });
}

const rawClient = (tableName: string) =>
  TableClient.fromConnectionString(connectionString(), tableName, {
    allowInsecureConnection: true,
  });

transparencyStoreCases("table", () => onTable());

describe("table transparency store", () => {
  it("is named certschedtransparency unless told otherwise", () => {
    expect(TRANSPARENCY_TABLE).toBe("certschedtransparency");
    expect(
      createTableTransparencyStore({ connectionString: "UseDevelopmentStorage=true" }).kind,
    ).toBe("table");
  });

  it("reads as empty before the table exists", async () => {
    const store = onTable();
    expect(await store.cursor("default", "contoso.com")).toBeUndefined();
    expect(await store.list("default")).toEqual({ items: [], invalid: [] });
    expect(await store.get("default", "1")).toBeUndefined();
    expect(await store.watcherState("key")).toEqual({});
    expect(await store.claimNotice("default", "1", T)).toBe(false);
    expect(
      await store.acknowledge("default", "1", { at: T, by: "cli", reason: "r" }),
    ).toBeUndefined();
  });

  it("keeps cursors and issuances across a restart (a new store on the same table)", async () => {
    const tableName = uniqueTableName("ct");
    const before = onTable(tableName);
    await before.setCursor("default", "contoso.com", "77");
    await before.addNew([seen("77")]);
    const after = onTable(tableName);
    expect(await after.cursor("default", "contoso.com")).toBe("77");
    expect(await after.addNew([seen("77"), seen("78")])).toEqual([seen("78")]);
  });

  it("two processes adding the same page: each id is added once, by one of them", async () => {
    const tableName = uniqueTableName("ct");
    const [a, b] = [onTable(tableName), onTable(tableName)];
    const page = Array.from({ length: 30 }, (_, i) => seen(String(1000 + i)));
    const [byA, byB] = await Promise.all([a.addNew(page), b.addNew(page)]);
    const ids = [...byA, ...byB].map((s) => s.issuance.id).sort();
    expect(ids).toEqual(page.map((s) => s.issuance.id).sort());
    expect((await a.list("default")).items).toHaveLength(30);
  });

  it("two processes claiming one message at once: exactly one wins", async () => {
    const tableName = uniqueTableName("ct");
    const [a, b] = [onTable(tableName), onTable(tableName)];
    await a.addNew([seen("1")]);
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).claimNotice("default", "1", T)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it("two processes taking from one allowance at once never take more than it holds", async () => {
    const tableName = uniqueTableName("ct");
    const [a, b] = [onTable(tableName), onTable(tableName)];
    const taken = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).takeRequest("key", T, 5)),
    );
    expect(taken.filter(Boolean)).toHaveLength(5);
    expect(await a.takeRequest("key", T, 5)).toBe(false);
  });

  it("lists the newest 5,000 and counts the rest in one line", async () => {
    const tableName = uniqueTableName("ct");
    const store = onTable(tableName);
    await store.addNew([seen("first")]);
    const client = rawClient(tableName);
    const rows = Array.from({ length: MAX_LISTED + 1 }, (_, i) =>
      toIssuanceRow(seen(`n${i}`, { firstSeenAt: at(i * 1_000) })),
    );
    // Transactions of 100 rows (one partition): far quicker than 5,001 single writes.
    for (let i = 0; i < rows.length; i += 100) {
      await client.submitTransaction(
        rows.slice(i, i + 100).map((row): TransactionAction => ["create", { ...row }]),
      );
    }
    const read = await store.list("default");
    expect(read.items).toHaveLength(MAX_LISTED);
    expect(read.items[0]?.issuance.id).toBe(`n${MAX_LISTED}`);
    expect(read.items.at(-1)?.issuance.id).toBe("n1");
    expect(read.invalid).toEqual([
      `2 older issuances not listed: at most ${MAX_LISTED} are, the newest`,
    ]);
  }, 120_000);

  it("names a row edited to be invalid in list, and refuses to guess it in get", async () => {
    const tableName = uniqueTableName("ct");
    const store = onTable(tableName);
    await store.addNew([seen("good"), seen("bad", { firstSeenAt: at(MINUTE) })]);
    await rawClient(tableName).updateEntity(
      {
        partitionKey: issuancePartition("default"),
        rowKey: "bad",
        pubkeySha256: "not a hash",
        verdict: "{",
      },
      "Merge",
    );
    const read = await store.list("default");
    expect(read.items.map((s) => s.issuance.id)).toEqual(["good"]);
    expect(read.invalid).toHaveLength(1);
    expect(read.invalid[0]).toContain("issuance row bad");
    expect(read.invalid[0]).toContain("pubkeySha256: must be 64 lower-case hex digits");
    expect(read.invalid[0]).toContain("verdict: must be JSON of the documented shape");
    const error = await store.get("default", "bad").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({ code: "STORAGE_UNAVAILABLE", retriable: false });
    // Never claimed as if it were readable.
    await expect(store.claimNotice("default", "bad", T)).rejects.toMatchObject({
      code: "STORAGE_UNAVAILABLE",
    });
  });

  it("refuses to read an edited watcher row as no pause", async () => {
    const tableName = uniqueTableName("ct");
    const store = onTable(tableName);
    await store.pause("key", at(HOUR), "401");
    const client = rawClient(tableName);
    const rows = client.listEntities({
      queryOptions: { filter: `PartitionKey eq '${WATCHER_PARTITION}'` },
    });
    for await (const row of rows) {
      await client.updateEntity(
        { partitionKey: WATCHER_PARTITION, rowKey: String(row.rowKey), pausedUntil: "soon" },
        "Merge",
      );
    }
    await expect(store.watcherState("key")).rejects.toThrow(
      /watcher row .* pausedUntil: must be an ISO-8601 UTC date-time/,
    );
  });

  it("stops a page with an id no key may be before writing any of it", async () => {
    const store = onTable();
    await expect(store.addNew([seen("1"), seen("a/b")])).rejects.toThrow(RangeError);
    expect((await store.list("default")).items).toEqual([]);
    await expect(store.setCursor("default", "contoso.com", "a#b")).rejects.toThrow(RangeError);
  });

  it("throws STORAGE_UNAVAILABLE with the status only when the storage cannot be reached", async () => {
    const key =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    const store = createTableTransparencyStore({
      // Port 9 (discard) on loopback: nothing listens there.
      connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://127.0.0.1:9/devstoreaccount1;`,
      tableName: "ctunreachable",
      timeoutMs: 5_000,
    });
    const error = await store.addNew([seen("1")]).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "STORAGE_UNAVAILABLE",
      retriable: true,
      fault: "upstream",
    });
    const message = (error as Error).message;
    expect(message).toMatch(/^transparency store: cannot write table ctunreachable \(.+\)$/);
    expect(message).not.toContain(key);
    expect(message).not.toContain("devstoreaccount1");
    await expect(store.cursor("default", "contoso.com")).rejects.toThrow(/cannot read table/);
  });
});
