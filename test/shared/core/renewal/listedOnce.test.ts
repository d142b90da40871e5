import { describe, expect, it } from "vitest";
import type { CertificateRecord } from "../../../../shared/core/certificate/records.js";
import type { DueList, RejectedRecord } from "../../../../shared/core/ports/service.js";
import { listedOnce } from "../../../../shared/core/renewal/listedOnce.js";

/** A record as far as listedOnce reads it: its id and name. */
const cert = (id: number, certificateName: string) =>
  ({ id, certificateName }) as unknown as CertificateRecord;

const rejectedAt = (index: number): RejectedRecord => ({
  index,
  certificateName: `bad-${index}`,
  id: undefined,
  problems: [{ name: "expiryDate", message: "missing" }],
});

const names = (due: DueList) => due.certificates.map((c) => c.certificateName);

describe("listedOnce: each certificate id renewed once", () => {
  it("keeps a list without duplicates as it is", () => {
    const due = { certificates: [cert(1, "a"), cert(2, "b")], rejected: [] };

    expect(listedOnce(due)).toEqual(due);
  });

  it("renews the same record listed twice once", () => {
    const result = listedOnce({ certificates: [cert(1, "a"), cert(1, "a")], rejected: [] });

    expect(names(result)).toEqual(["a"]);
    expect(result.rejected).toEqual([]);
  });

  it("renews the first of two names sharing an id and rejects the later one by name", () => {
    const result = listedOnce({
      certificates: [cert(7, "first"), cert(8, "other"), cert(7, "second")],
      rejected: [],
    });

    expect(names(result)).toEqual(["first", "other"]);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]).toMatchObject({ index: 2, certificateName: "second", id: 7 });
    expect(result.rejected[0]?.problems[0]?.message).toContain("also the id of record 0 (first)");
  });

  it("counts positions in the list as sent, past the records already rejected, in order", () => {
    // As sent: 0 bad, 1 first, 2 bad, 3 second (same id as first).
    const result = listedOnce({
      certificates: [cert(5, "first"), cert(5, "second")],
      rejected: [rejectedAt(2), rejectedAt(0)],
    });

    expect(result.rejected.map((r) => r.index)).toEqual([0, 2, 3]);
    expect(result.rejected[2]?.problems[0]?.message).toContain("record 1 (first)");
  });
});
