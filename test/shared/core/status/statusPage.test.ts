import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  CertificateStatus,
  StatusWord,
} from "../../../../shared/core/status/certificateStatus.js";
import {
  continuationAfter,
  MAX_TOP,
  nameAfter,
  pageOf,
  statusPageQuery,
} from "../../../../shared/core/status/statusPage.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { parseOrThrow } from "../../../../shared/lib/zodProblems.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/* Paging of GET /api/certificates: the query's rules, the token, and the walk over pages. */

const status = (certificateName: string, word: StatusWord = "ok"): CertificateStatus => ({
  certificateName,
  id: null,
  status: word,
  label: word,
  why: "",
  critical: false,
  expiry: { service: null, serviceDaysLeft: null, served: null, servedDaysLeft: null },
  ledger: null,
  verification: null,
  inventory: null,
  preflight: null,
  ari: null,
});

const query = (values: Record<string, string | undefined>) =>
  parseOrThrow(statusPageQuery, values, "query");

/** Every page from the first, following `next`. */
function walk(statuses: readonly CertificateStatus[], values: Record<string, string>): string[][] {
  const pages: string[][] = [];
  let continuation: string | undefined;
  for (;;) {
    const page = pageOf(statuses, query({ ...values, continuation }));
    pages.push(page.items.map((s) => s.certificateName));
    if (page.next === undefined) return pages;
    continuation = page.next;
    if (pages.length > statuses.length + 1) throw new Error("the pages never end");
  }
}

describe("statusPageQuery", () => {
  it("defaults top to 50 and takes 1 and 200, the ends of its range", () => {
    expect(query({}).top).toBe(50);
    expect(query({ top: "1" }).top).toBe(1);
    expect(query({ top: String(MAX_TOP) }).top).toBe(200);
  });

  it.each(["0", "201", "999", "1000", "-1", "+5", " 5", "5 ", "5.0", "1e2", "0x10", "", "five"])(
    "refuses top=%j naming top and the rule",
    (top) => {
      expect(() => query({ top })).toThrow(ValidationError);
      try {
        query({ top });
      } catch (error) {
        expect((error as ValidationError).issues).toEqual([
          { name: "top", message: "must be a whole number from 1 to 200" },
        ]);
      }
    },
  );

  it("takes one status word or several, separated by commas", () => {
    expect([...(query({ status: "failed" }).status ?? [])]).toEqual(["failed"]);
    expect([...(query({ status: "stuck,not-landed" }).status ?? [])]).toEqual([
      "stuck",
      "not-landed",
    ]);
  });

  it.each(["", ",", "failed,", "FAILED", "failed, stuck", "landed"])(
    "refuses status=%j naming status",
    (text) => {
      expect(() => query({ status: text })).toThrow(
        expect.objectContaining({ issues: [expect.objectContaining({ name: "status" })] }),
      );
    },
  );
});

describe("the preflight filter", () => {
  const withPreflight = (
    name: string,
    preflight: "ready" | "will-fail" | "unknown" | null,
    word: StatusWord = "ok",
  ): CertificateStatus => ({
    ...status(name, word),
    preflight:
      preflight === null
        ? null
        : { status: preflight, at: "", rootDomain: null, reasons: [], checks: [], blocks: null },
  });
  const statuses = [
    withPreflight("a", "will-fail"),
    withPreflight("b", "ready"),
    withPreflight("c", "unknown"),
    withPreflight("d", null),
    withPreflight("e", "will-fail", "failed"),
  ];
  const names = (values: Record<string, string>) =>
    pageOf(statuses, query(values)).items.map((s) => s.certificateName);

  it("keeps the certificates whose last preflight is one of the words (none: never checked)", () => {
    expect(names({})).toEqual(["a", "b", "c", "d", "e"]);
    expect(names({ preflight: "will-fail" })).toEqual(["a", "e"]);
    expect(names({ preflight: "ready,unknown" })).toEqual(["b", "c"]);
    expect(names({ preflight: "none" })).toEqual(["d"]);
  });

  it("both filters must match", () => {
    expect(names({ preflight: "will-fail", status: "ok" })).toEqual(["a"]);
    expect(names({ preflight: "ready", status: "failed" })).toEqual([]);
  });

  it.each(["", "will fail", "WILL-FAIL", "ready,", "blocked", "pass"])(
    "refuses preflight=%j naming preflight and its words",
    (text) => {
      expect(() => query({ preflight: text })).toThrow(
        expect.objectContaining({
          issues: [
            {
              name: "preflight",
              message:
                "must be one or more of ready, will-fail, unknown, none, separated by commas",
            },
          ],
        }),
      );
    },
  );
});

describe("the continuation token", () => {
  it("round-trips any name", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 1024, unit: "binary" }), (name) => {
        const token = continuationAfter(name);
        expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(nameAfter(token)).toBe(name);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it("round-trips the longest name in its longest form (1024 lone surrogates)", () => {
    const name = "\ud800".repeat(1024);
    expect(nameAfter(continuationAfter(name))).toBe(name);
  });

  it("takes a token of 16,384 characters, the most it reads, and refuses the next longer one", () => {
    // JSON allows spaces: a document of 12,288 bytes is exactly 16,384 base64url characters.
    const padded = (bytes: number) => {
      const json = '{"v":1,"after":"x"}';
      return Buffer.from(json.replace("{", `{${" ".repeat(bytes - json.length)}`)).toString(
        "base64url",
      );
    };
    expect(padded(12_288)).toHaveLength(16_384);
    expect(padded(12_289)).toHaveLength(16_386);

    expect(nameAfter(padded(12_288))).toBe("x");
    expect(nameAfter(padded(12_289))).toBeUndefined();
  });

  it.each([
    ["not base64url", "a+b/c="],
    ["not JSON", Buffer.from("after=x").toString("base64url")],
    ["another version", Buffer.from('{"v":2,"after":"x"}').toString("base64url")],
    ["an empty name", Buffer.from('{"v":1,"after":""}').toString("base64url")],
    ["a field more", Buffer.from('{"v":1,"after":"x","top":9}').toString("base64url")],
    ["far too long", "A".repeat(16_385)],
  ])("refuses %s", (_, token) => {
    expect(nameAfter(token)).toBeUndefined();
    expect(() => query({ continuation: token })).toThrow(
      expect.objectContaining({
        issues: [
          { name: "continuation", message: "must be the `next` of an earlier answer, unchanged" },
        ],
      }),
    );
  });
});

describe("pageOf", () => {
  it("walks every name once, in code-unit order, whatever the page size", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 45 }),
        (names, top) => {
          const pages = walk(
            names.map((n) => status(n)),
            { top: String(top) },
          );
          const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expect(pages.flat()).toEqual(sorted);
          // Full pages, but the last; no empty page unless there is nothing at all.
          for (const page of pages.slice(0, -1)) expect(page).toHaveLength(top);
          expect(pages.at(-1)?.length ?? 0).toBe(
            names.length === 0 ? 0 : names.length - top * (pages.length - 1),
          );
          if (names.length > 0) expect(pages.at(-1)?.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("sorts by code units, not by locale: upper case before lower case", () => {
    expect(walk([status("b"), status("B"), status("a"), status("A")], {})).toEqual([
      ["A", "B", "a", "b"],
    ]);
  });

  it("`next` exactly when more follow", () => {
    const three = ["a", "b", "c"].map((n) => status(n));
    expect(pageOf(three, query({ top: "3" })).next).toBeUndefined();
    expect(pageOf(three, query({ top: "2" })).next).toBe(continuationAfter("b"));
  });

  it("filters before paging, and resumes after a name that is no longer there", () => {
    const list = [
      status("a", "failed"),
      status("b", "ok"),
      status("c", "stuck"),
      status("d", "failed"),
    ];
    expect(walk(list, { top: "1", status: "failed,stuck" })).toEqual([["a"], ["c"], ["d"]]);
    expect(
      pageOf(list, query({ continuation: continuationAfter("bb") })).items.map(
        (s) => s.certificateName,
      ),
    ).toEqual(["c", "d"]);
  });
});

describe("pageOf over accounts", () => {
  it("walks every (name, account) once, a name shared by accounts included, whatever the page size", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.tuple(
            fc.string({ minLength: 1, maxLength: 4 }),
            fc.constantFrom("contoso", "fabrikam-eu", "a"),
          ),
          { maxLength: 40, selector: ([name, account]) => `${name}\u0000${account}` },
        ),
        fc.integer({ min: 1, max: 45 }),
        (pairs, top) => {
          const statuses = pairs.map(([name, account]) => ({ ...status(name), account }));
          const seen: string[] = [];
          let continuation: string | undefined;
          for (;;) {
            const page = pageOf(statuses, query({ top: String(top), continuation }));
            seen.push(...page.items.map((s) => `${s.certificateName}\u0000${s.account}`));
            if (!page.next) break;
            continuation = page.next;
          }
          const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
          const expected = [...pairs]
            .sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]))
            .map(([name, account]) => `${name}\u0000${account}`);
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("a token holds the account; one without (an older answer's) still reads", () => {
    const token = continuationAfter("www", "contoso");
    expect(query({ continuation: token }).continuation).toEqual({
      name: "www",
      account: "contoso",
    });
    expect(nameAfter(token)).toBe("www");
    expect(query({ continuation: continuationAfter("www") }).continuation).toEqual({
      name: "www",
    });
  });
});
