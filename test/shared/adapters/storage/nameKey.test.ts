import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  escapedName,
  MAX_KEY_CHARS,
  nameKey,
} from "../../../../shared/adapters/storage/nameKey.js";
import {
  EVENT_PARTITION_PREFIX,
  eventPartition,
} from "../../../../shared/adapters/storage/rows/historyRow.js";
import { inventoryRowKey } from "../../../../shared/adapters/storage/rows/inventoryRow.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** Characters a Table storage key may not hold (Azure's rule): / \ # ? and control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const NOT_IN_KEYS = /[/\\#?\u0000-\u001f\u007f-\u009f]/;

/** Names around and far past what a key holds: short, long, escaped nine times over. */
const name = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "binary", minLength: 40, maxLength: 700 }),
  fc.string({ unit: fc.constantFrom("a", "%", "証", "/", "\uD800"), maxLength: 600 }),
  fc.integer({ min: 500, max: 530 }).map((n) => "a".repeat(n)),
);

describe("nameKey", () => {
  it("fits the room, holds no character a key may not, and two names never share one (property)", () => {
    fc.assert(
      fc.property(name, name, fc.integer({ min: 66, max: MAX_KEY_CHARS }), (a, b, room) => {
        const key = nameKey(a, room);
        expect(key.length).toBeLessThanOrEqual(room);
        expect(key).not.toMatch(NOT_IN_KEYS);
        // What fits keeps the key it always had: existing rows stay where they are.
        if (escapedName(a).length <= room) expect(key).toBe(escapedName(a));
        else expect(key).toMatch(/%h[0-9a-f]{64}$/);
        if (a !== b) expect(nameKey(b, room)).not.toBe(key);
      }),
      { numRuns: propertyRuns(1000) },
    );
  });

  it("keeps a name of exactly 512 escaped characters; one more is hashed within 512", () => {
    expect(nameKey("a".repeat(MAX_KEY_CHARS))).toBe("a".repeat(MAX_KEY_CHARS));
    const longer = nameKey("a".repeat(MAX_KEY_CHARS + 1));
    expect(longer).toMatch(/^a{446}%h[0-9a-f]{64}$/);
    expect(longer).toHaveLength(MAX_KEY_CHARS);
    // Counted escaped: 57 CJK characters are 513.
    expect(escapedName("証".repeat(57))).toHaveLength(513);
    expect(nameKey("証".repeat(57))).toMatch(/%h[0-9a-f]{64}$/);
  });

  it("never ends a long name's head inside an escape", () => {
    for (let n = 0; n < 12; n++) {
      const key = nameKey(`${"a".repeat(n)}${"証".repeat(80)}`);
      const head = key.slice(0, key.indexOf("%h"));
      expect(head).toMatch(/^a*(?:%[0-9A-F]{2})*$/);
    }
  });

  it("keeps the keys rows were written under before (inventory and history)", () => {
    expect(inventoryRowKey("a/b#c")).toBe("a%2Fb%23c");
    expect(inventoryRowKey("a\uD800")).toBe("a%uD800");
    expect(eventPartition("shop/eu é")).toBe(`cert|${encodeURIComponent("shop/eu é")}`);
  });

  it("leaves the history's prefix room: an event partition is at most 512 characters", () => {
    const partition = eventPartition("証明書".repeat(50));
    expect(partition.startsWith(EVENT_PARTITION_PREFIX)).toBe(true);
    expect(partition).toHaveLength(MAX_KEY_CHARS);
    expect(eventPartition("a".repeat(MAX_KEY_CHARS - 5))).toHaveLength(MAX_KEY_CHARS);
    expect(eventPartition("a".repeat(MAX_KEY_CHARS - 4))).toMatch(/%h[0-9a-f]{64}$/);
  });
});
