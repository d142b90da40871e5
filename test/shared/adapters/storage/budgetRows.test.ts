import { describe, expect, it } from "vitest";
import { datetime, insertedAt } from "../../../../shared/adapters/storage/budgetRows.js";

describe("insertedAt", () => {
  it("reads the row's Timestamp from the ETag, to the sub-second", () => {
    expect(
      insertedAt({ etag: `W/"datetime'2024-05-01T10%3A20%3A30.1234567Z'"` })?.toISOString(),
    ).toBe("2024-05-01T10:20:30.123Z");
  });

  it("prefers the ETag to the Date header", () => {
    const at = insertedAt({
      etag: `W/"datetime'2024-05-01T10%3A20%3A30.5Z'"`,
      date: new Date("2024-05-01T10:20:45Z"),
    });
    expect(at?.toISOString()).toBe("2024-05-01T10:20:30.500Z");
  });

  it("without a readable ETag, the Date header less one second", () => {
    const date = new Date("2024-05-01T10:20:31Z");
    expect(insertedAt({ date })?.toISOString()).toBe("2024-05-01T10:20:30.000Z");
    expect(insertedAt({ etag: `W/"0x8D"`, date })?.toISOString()).toBe("2024-05-01T10:20:30.000Z");
    expect(insertedAt({ etag: `W/"datetime'garbage'"`, date })?.toISOString()).toBe(
      "2024-05-01T10:20:30.000Z",
    );
  });

  it("undefined when neither tells", () => {
    expect(insertedAt({})).toBeUndefined();
    expect(insertedAt({ etag: `W/"datetime'nope'"` })).toBeUndefined();
    expect(insertedAt({ date: new Date(Number.NaN) })).toBeUndefined();
  });
});

describe("datetime", () => {
  it("is an OData datetime literal of the instant in UTC", () => {
    expect(datetime(new Date("2024-05-01T10:20:30.123Z"))).toBe(
      "datetime'2024-05-01T10:20:30.123Z'",
    );
  });
});
