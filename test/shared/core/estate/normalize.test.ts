import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hostNameOf,
  instantOf,
  MAX_INSTANT_MS,
  SECONDS_BELOW,
  thumbprintOf,
} from "../../../../shared/core/estate/normalize.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const HEX = "0123456789ABCDEF0123456789ABCDEF01234567";
const AT = "2026-12-11T10:00:00.000Z";

describe("thumbprintOf", () => {
  it.each([
    [HEX, HEX],
    [HEX.toLowerCase(), HEX],
    [HEX.replace(/(..)/g, "$1 ").trim(), HEX],
    [HEX.replace(/(..)/g, "$1:").slice(0, -1).toLowerCase(), HEX],
    [HEX.replace(/(..)/g, "$1-").slice(0, -1), HEX],
  ])("reads %j", (input, expected) => expect(thumbprintOf(input)).toBe(expected));

  it.each([
    HEX.slice(1),
    `${HEX}0`,
    `${HEX.slice(1)}G`,
    `${HEX.slice(0, 20)}\n${HEX.slice(20)}`,
    `<b>${HEX}</b>`,
    "",
    40,
    null,
    undefined,
    { thumbprint: HEX },
  ])("refuses %j", (input) => expect(thumbprintOf(input)).toBeUndefined());
});

describe("instantOf", () => {
  it.each([
    ["2026-12-11T10:00:00Z", AT],
    ["2026-12-11T10:00:00.0000000Z", AT],
    ["2026-12-11T10:00:00.1239999Z", "2026-12-11T10:00:00.123Z"],
    ["2026-12-11T11:00:00+01:00", AT],
    ["2026-12-11T05:00:00-0500", AT],
    ["2026-12-11T10:00:00", AT],
    ["2026-12-11 10:00:00", AT],
    ["2026-12-11", "2026-12-11T00:00:00.000Z"],
    ["/Date(1765447200000)/", "2025-12-11T10:00:00.000Z"],
    ["/Date(1765447200000+0100)/", "2025-12-11T10:00:00.000Z"],
    [1765447200, "2025-12-11T10:00:00.000Z"],
    [1765447200000, "2025-12-11T10:00:00.000Z"],
    ["1765447200", "2025-12-11T10:00:00.000Z"],
    ["1765447200000", "2025-12-11T10:00:00.000Z"],
    ["Fri, 11 Dec 2026 10:00:00 GMT", AT],
    ["11 Dec 2026 11:00:00 +0100", AT],
    ["12/11/2026 10:00:00 AM", AT],
    ["12/11/2026 10:00:00 PM", "2026-12-11T22:00:00.000Z"],
    ["12/11/2026 12:00:00 AM", "2026-12-11T00:00:00.000Z"],
    ["12/11/2026 12:00:00 PM", "2026-12-11T12:00:00.000Z"],
    ["12/11/2026 22:00", "2026-12-11T22:00:00.000Z"],
    ["  2026-12-11T10:00:00Z ", AT],
    [new Date(AT), AT],
    ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    [0, "1970-01-01T00:00:00.000Z"],
  ])("reads %j", (input, expected) => expect(instantOf(input)?.toISOString()).toBe(expected));

  it("tells seconds from milliseconds at SECONDS_BELOW", () => {
    expect(instantOf(SECONDS_BELOW - 1)?.getTime()).toBe((SECONDS_BELOW - 1) * 1000);
    expect(instantOf(SECONDS_BELOW)?.getTime()).toBe(SECONDS_BELOW);
  });

  it.each([
    "1969-12-31T23:59:59.999Z",
    "1970-01-01T00:30:00+01:00",
    "10000-01-01T00:00:00Z",
    "9999-12-31T23:59:59-01:00",
    "2026-02-30T10:00:00Z",
    "2026-13-01T10:00:00Z",
    "2026-12-11T24:00:00Z",
    "2026-12-11T10:60:00Z",
    "2026-12-11T10:00:00+24:00",
    "0050-01-01T00:00:00Z",
    "13/11/2026 10:00:00 AM",
    "12/11/2026 13:00:00 PM",
    "12/11/2026 0:00:00 AM",
    "Fri, 11 Foo 2026 10:00:00 GMT",
    "tomorrow",
    "",
    "/Date(-1)/",
    `2026-12-11T10:00:00Z${" ".repeat(100)}`,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -1,
    MAX_INSTANT_MS + 1,
    new Date(Number.NaN),
    new Date(-1),
    true,
    null,
    undefined,
    {},
  ])("refuses %j", (input) => expect(instantOf(input)).toBeUndefined());

  it("never throws and answers only instants from 1970 to 9999", () => {
    const input = fc.oneof(
      fc.anything(),
      fc.string(),
      fc.double(),
      fc.date({ noInvalidDate: false }),
      fc.stringMatching(/^[0-9/:. TZ+-]{0,40}$/),
    );
    fc.assert(
      fc.property(input, (value) => {
        const at = instantOf(value);
        if (at === undefined) return;
        expect(at.getTime()).toBeGreaterThanOrEqual(0);
        expect(at.getTime()).toBeLessThanOrEqual(MAX_INSTANT_MS);
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it("reads back every instant written as ISO 8601", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_INSTANT_MS }), (ms) => {
        expect(instantOf(new Date(ms).toISOString())?.getTime()).toBe(ms);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe("hostNameOf", () => {
  it.each([
    ["www.contoso.com", "www.contoso.com"],
    ["WWW.Contoso.COM.", "www.contoso.com"],
    ["*.contoso.com", "*.contoso.com"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["localhost", "localhost"],
    [`${"a".repeat(63)}.com`, `${"a".repeat(63)}.com`],
    [`${"a.".repeat(126)}b`, `${"a.".repeat(126)}b`],
    [`${"a.".repeat(126)}b.`, `${"a.".repeat(126)}b`],
  ])("reads %j", (input, expected) => expect(hostNameOf(input)).toBe(expected));

  it.each([
    "www.*.contoso.com",
    "*",
    "*.",
    "**.contoso.com",
    "a*.contoso.com",
    "www..contoso.com",
    ".contoso.com",
    "-www.contoso.com",
    "www-.contoso.com",
    `${"a".repeat(64)}.com`,
    `${"a.".repeat(126)}bc.`,
    `${"a.".repeat(126)}bc`,
    "www.contoso.com ",
    "www contoso.com",
    "www.contoso.com\n",
    "www.con\u0000toso.com",
    "<script>.contoso.com",
    "www.contoso.com/",
    "www_1.contoso.com",
    "\u212aontoso.com",
    "bücher.example",
    "",
    ".",
    42,
    null,
    undefined,
  ])("refuses %j", (input) => expect(hostNameOf(input)).toBeUndefined());

  it("never throws and answers only valid, lower-case, bounded names", () => {
    const input = fc.oneof(
      fc.anything(),
      fc.string({ maxLength: 300 }),
      fc.stringMatching(/^[a-zA-Z0-9.*<> -]{0,300}$/),
      fc.domain(),
    );
    fc.assert(
      fc.property(input, (value) => {
        const name = hostNameOf(value);
        if (name === undefined) return;
        expect(name.length).toBeLessThanOrEqual(253);
        expect(name).toMatch(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/);
        expect(hostNameOf(name)).toBe(name);
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it("keeps every domain name", () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        expect(hostNameOf(domain)).toBe(domain.toLowerCase());
        expect(hostNameOf(`*.${domain}`)).toBe(`*.${domain.toLowerCase()}`);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
