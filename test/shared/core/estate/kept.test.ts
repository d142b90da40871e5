import { describe, expect, it } from "vitest";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import { enteringExpiring, keptOf } from "../../../../shared/core/estate/kept.js";
import { estateReport } from "../../../../shared/core/estate/report.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const DAY = 86_400_000;
const SUB = "00000000-0000-0000-0000-000000000001";

function cert(
  name: string,
  days: number,
  fields: Partial<EstateCertificate> = {},
): EstateCertificate {
  return {
    id: `/subscriptions/${SUB}/x/${name}`,
    kind: "application-gateway",
    name,
    subscriptionId: SUB,
    expiresAt: new Date(NOW.getTime() + days * DAY),
    hostNames: [],
    moreHostNames: 0,
    boundTo: [{ kind: "listener", resourceId: "/x/listeners/l", hostName: `${name}.example.org` }],
    problems: [],
    ...fields,
  };
}

const report = (certificates: EstateCertificate[], expiringDays = 30) =>
  estateReport({
    account: "contoso",
    discovered: certificates,
    records: [],
    now: NOW,
    expiringDays,
    problems: [{ where: "vault kv", detail: "refused" }],
    truncated: 2,
  });

describe("what is kept of a report", () => {
  it("keeps its time, counts and every unmanaged-and-expiring entry in a few fields, soonest first", () => {
    const kept = keptOf(report([cert("late", 200), cert("b", 9), cert("a", 3)]));
    expect(kept).toEqual({
      account: "contoso",
      at: NOW,
      expiringDays: 30,
      counts: expect.objectContaining({ certificates: 3, unmanaged: 3, "unmanaged-expiring": 2 }),
      problems: 1,
      truncated: 2,
      expiring: [
        {
          id: `/subscriptions/${SUB}/x/a`,
          name: "a",
          kind: "application-gateway",
          subscriptionId: SUB,
          expiresAt: new Date(NOW.getTime() + 3 * DAY),
          boundTo: "listener a.example.org",
        },
        expect.objectContaining({ name: "b", boundTo: "listener b.example.org" }),
      ],
    });
  });

  it("a certificate expiring exactly at the bound is kept; one a millisecond later is not", () => {
    const at = cert("at", 30);
    const after = cert("after", 30, { expiresAt: new Date(NOW.getTime() + 30 * DAY + 1) });
    expect(keptOf(report([at, after])).expiring.map((e) => e.name)).toEqual(["at"]);
  });

  it("what entered the set is what was not kept before, by id", () => {
    const before = keptOf(report([cert("a", 3)]));
    const now = report([cert("a", 2), cert("b", 5)]);
    expect(enteringExpiring(before, now).map((e) => e.certificate.name)).toEqual(["b"]);
    expect(enteringExpiring(undefined, now).map((e) => e.certificate.name)).toEqual(["a", "b"]);
  });
});
