import { describe, expect, it } from "vitest";
import { MAX_KEY_CHARS } from "../../../../../shared/adapters/storage/nameKey.js";
import {
  fromVaultEventRow,
  toVaultEventRow,
} from "../../../../../shared/adapters/storage/rows/vaultEventRow.js";
import { eventKey } from "../../../../../shared/core/vaultEvents/vaultEvent.js";
import { ValidationError } from "../../../../../shared/lib/errors.js";

const T = new Date("2026-12-02T10:00:00.000Z");
const base = {
  kind: "expired" as const,
  vaultName: "contoso-kv",
  certificateName: "www/Contoso?#",
  version: "0123456789abcdef0123456789abcdef",
  eventId: "e1",
  claimedAt: T,
};
const record = { key: eventKey(base), ...base };

describe("the vault event row", () => {
  it("reads back as written, with its lease; keys hold no character a key may not", () => {
    const row = toVaultEventRow("default", record, new Date(T.getTime() + 1));
    expect(row.rowKey).not.toMatch(/[/\\#?]/);
    expect(fromVaultEventRow({ ...row, etag: "x" }, "t")).toEqual({
      record,
      leaseUntil: new Date(T.getTime() + 1),
    });
  });

  it("a long certificate name still makes a key that fits", () => {
    const long = { ...base, certificateName: "c".repeat(900) };
    const row = toVaultEventRow("default", { key: eventKey(long), ...long }, T);
    expect(row.rowKey.length).toBeLessThanOrEqual(MAX_KEY_CHARS);
    expect(fromVaultEventRow({ ...row }, "t").record.certificateName).toBe(long.certificateName);
  });

  it("a row whose key is not its event's, or a wrong field: a ValidationError naming the field", () => {
    const row = toVaultEventRow("default", record, T);
    expect(() => fromVaultEventRow({ ...row, version: "other" }, "t")).toThrow(/key/);
    expect(() => fromVaultEventRow({ ...row, claimedAt: "yesterday" }, "t")).toThrow(
      ValidationError,
    );
    expect(() => fromVaultEventRow({ ...row, eventId: "e".repeat(129) }, "t")).toThrow(/eventId/);
  });
});
