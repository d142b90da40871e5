import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  eventServedFrom,
  eventServedText,
  receiptFrom,
  receiptJson,
} from "../../../../../shared/adapters/storage/rows/servedJson.js";
import { hasLanded } from "../../../../../shared/core/verification/landing.js";
import { MAX_FACT, type ServedFacts } from "../../../../../shared/core/verification/served.js";
import { propertyRuns } from "../../../../support/fastCheck.js";

const date = fc.date({
  min: new Date("2000-01-01T00:00:00.000Z"),
  max: new Date("2100-01-01T00:00:00.000Z"),
  noInvalidDate: true,
});
const hex = fc.stringMatching(/^[0-9A-F]{64}$/);
const facts: fc.Arbitrary<ServedFacts> = fc.record(
  {
    thumbprint: hex,
    serial: fc.string({ maxLength: 300 }),
    issuer: fc.string({ unit: "binary", maxLength: 400 }),
    notBefore: date,
    notAfter: date,
    version: fc.string({ maxLength: 250 }),
    pubkeySha256: fc.stringMatching(/^[0-9a-f]{64}$/),
    tbsSha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  },
  { requiredKeys: ["thumbprint"] },
);

describe("servedJson properties", () => {
  it("any receipt survives the round trip: fingerprints whole, dates exact, texts within MAX_FACT", () => {
    fc.assert(
      fc.property(
        date,
        fc.option(facts, { nil: undefined }),
        fc.option(facts, { nil: undefined }),
        (acceptedAt, before, after) => {
          const stored = JSON.parse(JSON.stringify(receiptJson({ acceptedAt, before, after })));
          const read = receiptFrom(stored);
          expect(read?.acceptedAt).toEqual(acceptedAt);
          expect(read?.before?.thumbprint).toBe(before?.thumbprint);
          expect(read?.after?.notAfter).toEqual(after?.notAfter);
          // The CT hashes whole, or absent as they were.
          expect(read?.before?.pubkeySha256).toBe(before?.pubkeySha256);
          expect(read?.after?.tbsSha256).toBe(after?.tbsSha256);
          for (const f of [read?.before, read?.after]) {
            for (const text of [f?.serial, f?.issuer, f?.version]) {
              expect((text ?? "").length).toBeLessThanOrEqual(MAX_FACT);
            }
          }
          const event = eventServedFrom(eventServedText({ before, after }));
          expect(event.before?.thumbprint).toBe(before?.thumbprint);
          expect(event.after?.thumbprint).toBe(after?.thumbprint);
          expect(event.before?.tbsSha256).toBe(before?.tbsSha256);
          expect(event.after?.pubkeySha256).toBe(after?.pubkeySha256);
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });

  it("whatever is stored, reading never throws: a receipt or nothing", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        expect(() => receiptFrom(value)).not.toThrow();
        expect(() => eventServedFrom(text)).not.toThrow();
        expect(() => eventServedFrom(JSON.stringify(value))).not.toThrow();
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it("with a fingerprint from before, only the fingerprint decides, whatever the dates", () => {
    fc.assert(
      fc.property(hex, hex, date, date, (before, served, expiryAtRequest, notAfter) => {
        const renewal = { expiryAtRequest, beforeThumbprint: before };
        expect(hasLanded(renewal, { thumbprint: served, notAfter })).toBe(served !== before);
        expect(hasLanded(renewal, { thumbprint: before.toLowerCase(), notAfter })).toBe(false);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
