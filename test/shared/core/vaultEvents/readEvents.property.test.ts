import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_SKIP_DETAIL,
  readVaultEvents,
} from "../../../../shared/core/vaultEvents/readEvents.js";
import {
  MAX_EVENT_ID,
  type ReadEvent,
  VAULT_EVENT_TYPES,
} from "../../../../shared/core/vaultEvents/vaultEvent.js";
import { propertyRuns } from "../../../support/fastCheck.js";
import { cloudEvent, eventGridEvent } from "../../../support/vaultEvents.js";

/**
 * readVaultEvents over anything a delivery may hold: it never throws, reads one item per entry,
 * and every detail and id is bounded and free of control and bidi characters, whatever names,
 * types and values the entries carry.
 */

const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Text that likes the characters that forge lines and reorder what a reader sees. */
const nasty = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("\n", "\u001b[2J", "\u202e", "\u2066", "\u0085", "a".repeat(400), "kv-contoso"),
  fc.string({ maxLength: 200 }),
);

const typeName = fc.oneof(fc.constantFrom(...Object.values(VAULT_EVENT_TYPES)), nasty);

/** A sample event with any field replaced by any JSON value (names, ids, data fields). */
const mutated = fc
  .tuple(
    fc.boolean(),
    fc.constantFrom(
      "id",
      "topic",
      "source",
      "eventType",
      "type",
      "eventTime",
      "specversion",
      "data",
    ),
    fc.constantFrom("Id", "VaultName", "ObjectType", "ObjectName", "Version", "NBF", "EXP"),
    fc.oneof(nasty, fc.jsonValue({ maxDepth: 2 }), typeName),
    fc.oneof(nasty, fc.jsonValue({ maxDepth: 2 })),
  )
  .map(([cloud, field, dataField, value, dataValue]) => {
    const base = cloud ? cloudEvent() : eventGridEvent();
    const data = { ...(base.data as Record<string, unknown>), [dataField]: dataValue };
    return { ...base, data, [field]: value };
  });

const entry = fc.oneof(mutated, fc.jsonValue({ maxDepth: 3 }), fc.anything({ maxDepth: 2 }));

const delivery = fc.oneof(
  entry,
  fc.array(entry, { maxLength: 8 }),
  fc.array(entry, { maxLength: 8 }).map((a) => JSON.stringify(a) ?? "null"),
  fc.array(entry, { maxLength: 4 }).map((a) => Buffer.from(JSON.stringify(a) ?? "[")),
  fc.string({ unit: "binary", maxLength: 200 }),
);

function expectClean(read: ReadEvent): void {
  if (read.kind === "event") {
    expect(read.event.id.length).toBeLessThanOrEqual(MAX_EVENT_ID);
    expect(read.event.id).not.toMatch(CONTROL);
    for (const text of [read.event.vaultName, read.event.certificateName, read.event.version]) {
      expect(text).toMatch(/^[0-9A-Za-z-]+$/);
    }
    return;
  }
  expect(read.detail.length).toBeLessThanOrEqual(MAX_SKIP_DETAIL);
  expect(read.detail).not.toMatch(CONTROL);
  expect((read.id ?? "").length).toBeLessThanOrEqual(MAX_EVENT_ID);
  expect(read.id ?? "").not.toMatch(CONTROL);
}

describe("readVaultEvents: properties", () => {
  it("never throws; one item per entry; every detail and id bounded and without control characters", () => {
    fc.assert(
      fc.property(delivery, (input) => {
        const { events, beyond } = readVaultEvents(input);
        expect(beyond).toBe(0);
        if (Array.isArray(input)) expect(events).toHaveLength(input.length);
        // A JSON text or its bytes may hold an empty array; anything else is one entry at least.
        else if (typeof input !== "string" && !(input instanceof Uint8Array)) {
          expect(events).toHaveLength(1);
        }
        events.forEach(expectClean);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
