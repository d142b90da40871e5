import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_KEY_CHARS } from "../../../../../shared/adapters/storage/nameKey.js";
import {
  cursorPartition,
  fromCursorRow,
  fromIssuanceRow,
  fromWatcherRow,
  issuancePartition,
  MAX_NAMES_JSON,
  MAX_PROBLEMS,
  nameRowKey,
  toIssuanceRow,
} from "../../../../../shared/adapters/storage/rows/issuanceRow.js";
import {
  type Acknowledgement,
  type IssuanceVerdict,
  MAX_DNS_NAME,
  MAX_ISSUANCE_NAMES,
  MAX_ISSUER_TEXT,
  type SeenIssuance,
} from "../../../../../shared/core/transparency/issuance.js";
import { ValidationError } from "../../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../../support/fastCheck.js";

/** Characters a Table storage key may not hold (Azure's rule): / \ # ? and control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const NOT_IN_KEYS = /[/\\#?\u0000-\u001f\u007f-\u009f]/;

const T = new Date("2026-11-23T03:00:00.000Z");
const TABLE = "certschedtransparency";

// Whole milliseconds between 1970 and 9998: the dates an issuance keeps.
const instant = fc.date({
  min: new Date(0),
  max: new Date("9998-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});
const text = (maxLength: number) => fc.string({ unit: "binary", maxLength });
const hex = fc.stringMatching(/^[0-9a-f]{64}$/);

const verdict: fc.Arbitrary<IssuanceVerdict> = fc.oneof(
  fc.record({
    kind: fc.constant("expected" as const),
    because: fc.constantFrom("public-key" as const, "tbs" as const),
    certificateName: text(40),
    where: fc.constantFrom("served" as const, "vault" as const, "receipt" as const),
  }),
  fc.record({
    kind: fc.constant("expected" as const),
    because: fc.constant("request" as const),
    certificateName: text(40),
    sentAt: instant,
  }),
  fc.record({
    kind: fc.constant("pending" as const),
    certificateName: text(40),
    sentAt: instant,
    until: instant,
  }),
  fc.record({ kind: fc.constant("unexpected" as const), since: instant, why: text(80) }),
);

const acknowledgement: fc.Arbitrary<Acknowledgement> = fc.record({
  at: instant,
  by: text(40),
  reason: text(200),
});

const seenIssuance: fc.Arbitrary<SeenIssuance> = fc.record(
  {
    account: fc.string({ unit: "binary", minLength: 1, maxLength: 30 }),
    issuance: fc.record(
      {
        id: fc.stringMatching(/^[0-9A-Za-z_-]{1,40}$/),
        tbsSha256: hex,
        certSha256: hex,
        pubkeySha256: hex,
        notBefore: instant,
        notAfter: instant,
        dnsNames: fc.array(text(60), { maxLength: 8 }),
        moreNames: fc.nat(1_000_000),
        issuer: text(MAX_ISSUER_TEXT),
        revoked: fc.boolean(),
        revokedAt: instant,
        problems: fc.array(text(60), { maxLength: 3 }),
      },
      { requiredKeys: ["id", "dnsNames", "moreNames", "revoked", "problems"] },
    ),
    watched: fc.stringMatching(/^[a-z0-9.-]{1,60}$/),
    firstSeenAt: instant,
    verdict,
    notifiedAt: instant,
    acknowledged: acknowledgement,
  },
  { requiredKeys: ["account", "issuance", "watched", "firstSeenAt", "verdict"] },
);

const seen = (more: Partial<SeenIssuance["issuance"]> = {}): SeenIssuance => ({
  account: "default",
  issuance: {
    id: "1",
    dnsNames: ["contoso.com"],
    moreNames: 0,
    revoked: false,
    problems: [],
    ...more,
  },
  watched: "contoso.com",
  firstSeenAt: T,
  verdict: { kind: "unexpected", since: T, why: "nothing certsched did" },
});

/** The row as the table gives it back: its keys, properties and version. */
const stored = (row: object) => ({ ...row, etag: 'W/"1"', timestamp: T.toISOString() });

describe("issuance rows", () => {
  it("read back as written, for every issuance", () => {
    fc.assert(
      fc.property(seenIssuance, (s) => {
        const back = fromIssuanceRow(stored(toIssuanceRow(s)), TABLE);
        expect(back.seen).toEqual(s);
        expect(back.claimedAt).toBeUndefined();
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it("file an account's issuances under a key a partition may be, whatever the account", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 1, maxLength: 600 }), (account) => {
        for (const key of [issuancePartition(account), cursorPartition(account)]) {
          expect(key).not.toMatch(NOT_IN_KEYS);
          expect(key.length).toBeLessThanOrEqual(MAX_KEY_CHARS);
        }
        expect(issuancePartition(account).startsWith("issuance|")).toBe(true);
        expect(cursorPartition(account).startsWith("cursor|")).toBe(true);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it("keep at most 100 names, in a property a row holds, and count the rest", () => {
    const many = toIssuanceRow(
      seen({
        dnsNames: Array.from({ length: 10_000 }, (_, i) => `n${i}.contoso.com`),
        moreNames: 5,
      }),
    );
    expect(JSON.parse(many.dnsNames)).toHaveLength(MAX_ISSUANCE_NAMES);
    expect(many.moreNames).toBe(10_000 - MAX_ISSUANCE_NAMES + 5);
    // 100 names of backslashes double in JSON: fewer fit, the rest are counted too.
    const escaped = toIssuanceRow(
      seen({ dnsNames: Array.from({ length: 100 }, () => "\\".repeat(MAX_DNS_NAME)) }),
    );
    expect(escaped.dnsNames.length).toBeLessThanOrEqual(MAX_NAMES_JSON);
    const kept = JSON.parse(escaped.dnsNames) as string[];
    expect(escaped.moreNames).toBe(100 - kept.length);
    expect(fromIssuanceRow(stored(escaped), TABLE).seen.issuance.dnsNames).toEqual(kept);
  });

  it("bound texts and problems so that what they write reads back", () => {
    const row = toIssuanceRow(
      seen({
        issuer: "I".repeat(5_000),
        dnsNames: ["x".repeat(1_000)],
        problems: Array.from({ length: 50 }, () => "p".repeat(5_000)),
      }),
    );
    const back = fromIssuanceRow(stored(row), TABLE).seen.issuance;
    expect(back.issuer).toHaveLength(MAX_ISSUER_TEXT);
    expect(back.dnsNames[0]).toHaveLength(MAX_DNS_NAME);
    expect(back.problems).toHaveLength(MAX_PROBLEMS);
  });

  it("refuse an id a row key may not be", () => {
    for (const id of ["", "a/b", "a#b", "x".repeat(41), "ü"]) {
      expect(() => toIssuanceRow(seen({ id }))).toThrow(RangeError);
    }
  });

  it("read a claim, and a released one as none", () => {
    const row = toIssuanceRow(seen());
    expect(
      fromIssuanceRow(stored({ ...row, claimedAt: T.toISOString() }), TABLE).claimedAt,
    ).toEqual(T);
    expect(fromIssuanceRow(stored({ ...row, claimedAt: "" }), TABLE).claimedAt).toBeUndefined();
  });

  it.each([
    ["firstSeenAt", { firstSeenAt: "yesterday" }, "firstSeenAt: must be an ISO-8601 UTC date-time"],
    ["a hash", { tbsSha256: "AB".repeat(32) }, "tbsSha256: must be 64 lower-case hex digits"],
    [
      "the verdict",
      { verdict: '{"kind":"maybe"}' },
      "verdict: must be JSON of the documented shape",
    ],
    ["the names", { dnsNames: "[1]" }, "dnsNames: must be JSON of the documented shape"],
    ["moreNames", { moreNames: -1 }, "moreNames: must be a whole number from 0"],
    ["the id", { rowKey: "a b" }, "rowKey: must be an issuance id"],
    [
      "the account",
      { account: "other" },
      "account: must be the account the partition key stands for",
    ],
    ["revoked", { revoked: "yes" }, "revoked:"],
  ])("name a row whose %s is not right, never guess it", (_what, edit, problem) => {
    const row = { ...toIssuanceRow(seen()), ...edit };
    const error = (() => {
      try {
        fromIssuanceRow(stored(row), TABLE);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(`issuance row ${row.rowKey} in table ${TABLE}`);
    expect((error as Error).message).toContain(problem);
  });
});

describe("cursor and watcher rows", () => {
  it("read a cursor only as the name and account its key stands for", () => {
    const row = {
      rowKey: nameRowKey("contoso.com"),
      account: "default",
      name: "contoso.com",
      after: "12",
    };
    expect(fromCursorRow(row, "default", "contoso.com", TABLE)).toBe("12");
    expect(() => fromCursorRow(row, "default", "fabrikam.com", TABLE)).toThrow(ValidationError);
    expect(() => fromCursorRow(row, "other", "contoso.com", TABLE)).toThrow(ValidationError);
    expect(() => fromCursorRow({ ...row, after: "a/b" }, "default", "contoso.com", TABLE)).toThrow(
      /after: must be an issuance id/,
    );
  });

  it("read a watcher row's pause and count; a count that is not one is named", () => {
    const row = {
      keyName: "key",
      pausedUntil: T.toISOString(),
      reason: "429",
      hour: T.toISOString(),
      requests: 3,
    };
    expect(fromWatcherRow(row, "key", TABLE)).toEqual({
      pausedUntil: T,
      reason: "429",
      hour: T,
      requests: 3,
    });
    expect(fromWatcherRow({ keyName: "key" }, "key", TABLE)).toMatchObject({ requests: 0 });
    expect(() => fromWatcherRow({ ...row, requests: 1.5 }, "key", TABLE)).toThrow(ValidationError);
    expect(() => fromWatcherRow(row, "another key", TABLE)).toThrow(/keyName/);
  });
});
