import { describe, expect, it } from "vitest";
import type {
  InventoryRecord,
  VerificationRecord,
} from "../../../../shared/core/ports/inventory.js";
import type {
  InventoryResult,
  InventoryVerification,
  StatusChange,
} from "../../../../shared/core/verification/inventoryResult.js";
import type { InventoryStatus } from "../../../../shared/core/verification/judge.js";
import { verificationNotices } from "../../../../shared/core/verification/notices.js";
import { HOUR_MS } from "../../../../shared/lib/time.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const GRACE = 24 * HOUR_MS;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

const result = (
  status: InventoryStatus,
  extra: Partial<InventoryResult> = {},
): InventoryResult => ({
  domain: "www.contoso.com",
  certificateName: "web",
  source: "tls",
  status,
  detail: "d",
  ...extra,
});

const change = (
  from: InventoryStatus | undefined,
  to: InventoryStatus,
  extra: Partial<StatusChange> = {},
): StatusChange => ({
  certificateName: "web",
  domain: "www.contoso.com",
  ...(from === undefined ? {} : { from }),
  to,
  critical: false,
  ...extra,
});

const run = (results: InventoryResult[], changes: StatusChange[]): InventoryVerification => ({
  at: NOW,
  results,
  counts: {},
  failed: false,
  problems: [],
  changes,
});

const stored = (
  status: InventoryStatus,
  extra: Partial<VerificationRecord> = {},
  name = "web",
): InventoryRecord => ({
  certificateName: name,
  source: "due-list",
  firstSeen: ago(30 * 24 * HOUR_MS),
  lastSeen: NOW,
  lastVerification: {
    at: ago(HOUR_MS),
    status,
    source: "tls",
    domain: "www.contoso.com",
    detail: "before",
    ...extra,
  },
});

const inventoryBefore = (...records: InventoryRecord[]) => ({ records, unreachableAfterMs: GRACE });

describe("verificationNotices: from the changes", () => {
  it("a change into a state that needs a person is a bad notice with this run's reading", () => {
    const r = result("expired");
    expect(verificationNotices(run([r], [change("ok", "expired")]))).toEqual([
      {
        kind: "bad",
        certificateName: "web",
        domain: "www.contoso.com",
        from: "ok",
        to: "expired",
        critical: false,
        pastGrace: false,
        result: r,
      },
    ]);
  });

  it("a first verification that is bad is a bad notice too (from undefined)", () => {
    const [notice] = verificationNotices(
      run([result("mismatch")], [change(undefined, "mismatch")]),
    );
    expect(notice).toMatchObject({ kind: "bad", to: "mismatch" });
    expect(notice?.from).toBeUndefined();
  });

  it("a change that needs nobody is no notice", () => {
    expect(
      verificationNotices(
        run([result("expiring")], [change("ok", "expiring"), change(undefined, "ok")]),
      ),
    ).toEqual([]);
  });

  it("critical expiring and unreachable past its grace need a person", () => {
    const critical = verificationNotices(
      run([result("expiring", { critical: true })], [change("ok", "expiring", { critical: true })]),
    );
    expect(critical).toMatchObject([{ kind: "bad", critical: true, pastGrace: false }]);
    const past = verificationNotices(
      run([result("unreachable", { pastGrace: true })], [change("ok", "unreachable")]),
    );
    expect(past).toMatchObject([{ kind: "bad", to: "unreachable", pastGrace: true }]);
    const within = verificationNotices(
      run([result("unreachable", { pastGrace: false })], [change("ok", "unreachable")]),
    );
    expect(within).toEqual([]);
  });

  it("back to ok from an always-bad status is a recovery", () => {
    expect(verificationNotices(run([result("ok")], [change("expired", "ok")]))).toMatchObject([
      { kind: "recovered", from: "expired", to: "ok" },
    ]);
  });

  it("back to ok from a state that needed nobody is no notice", () => {
    expect(verificationNotices(run([result("ok")], [change("pending", "ok")]))).toEqual([]);
    expect(verificationNotices(run([result("ok")], [change("expiring", "ok")]))).toEqual([]);
  });

  it("back to ok from critical expiring or unreachable past grace: the stored record says", () => {
    const critical = inventoryBefore(stored("expiring", { critical: true }));
    expect(
      verificationNotices(run([result("ok")], [change("expiring", "ok")]), critical),
    ).toMatchObject([{ kind: "recovered", from: "expiring" }]);
    const pastGrace = inventoryBefore(
      stored("unreachable", { at: ago(HOUR_MS), unreachableSince: ago(HOUR_MS + GRACE) }),
    );
    expect(
      verificationNotices(run([result("ok")], [change("unreachable", "ok")]), pastGrace),
    ).toMatchObject([{ kind: "recovered", from: "unreachable" }]);
    const withinGrace = inventoryBefore(
      stored("unreachable", { at: ago(HOUR_MS), unreachableSince: ago(HOUR_MS + GRACE - 1) }),
    );
    expect(
      verificationNotices(run([result("ok")], [change("unreachable", "ok")]), withinGrace),
    ).toEqual([]);
  });

  it("a domain several certificates share: one notice, with the shared result", () => {
    const shared = result("expired");
    const notices = verificationNotices(
      run(
        [shared],
        [change("ok", "expired"), change("ok", "expired", { certificateName: "web2" })],
      ),
    );
    expect(notices.map((n) => n.certificateName)).toEqual(["web", "web2"]);
    expect(notices[1]?.result).toBe(shared);
    const twice = verificationNotices(
      run([shared], [change("ok", "expired"), change("ok", "expired")]),
    );
    expect(twice).toHaveLength(1);
  });
});

describe("verificationNotices: crossings within one status", () => {
  it("without the inventory before the run, none are told", () => {
    expect(verificationNotices(run([result("expiring", { critical: true })], []))).toEqual([]);
  });

  it("expiring turning critical is a bad notice", () => {
    const r = result("expiring", { critical: true });
    expect(verificationNotices(run([r], []), inventoryBefore(stored("expiring")))).toEqual([
      {
        kind: "bad",
        certificateName: "web",
        domain: "www.contoso.com",
        from: "expiring",
        to: "expiring",
        critical: true,
        pastGrace: false,
        result: r,
      },
    ]);
  });

  it("unreachable passing its grace is a bad notice; still within it, none", () => {
    const stillWithin = inventoryBefore(
      stored("unreachable", { at: ago(HOUR_MS), unreachableSince: ago(HOUR_MS) }),
    );
    expect(
      verificationNotices(run([result("unreachable", { pastGrace: true })], []), stillWithin),
    ).toMatchObject([{ kind: "bad", from: "unreachable", pastGrace: true }]);
    expect(
      verificationNotices(run([result("unreachable", { pastGrace: false })], []), stillWithin),
    ).toEqual([]);
  });

  it("a state that stays bad is not repeated", () => {
    const wasCritical = inventoryBefore(stored("expiring", { critical: true }));
    expect(
      verificationNotices(run([result("expiring", { critical: true })], []), wasCritical),
    ).toEqual([]);
    const wasPast = inventoryBefore(
      stored("unreachable", { at: ago(HOUR_MS), unreachableSince: ago(HOUR_MS + GRACE) }),
    );
    expect(
      verificationNotices(run([result("unreachable", { pastGrace: true })], []), wasPast),
    ).toEqual([]);
    expect(
      verificationNotices(run([result("expired")], []), inventoryBefore(stored("expired"))),
    ).toEqual([]);
  });

  it("a status that differs from the stored one is the changes' to tell, not told twice", () => {
    const notices = verificationNotices(
      run([result("expired")], [change("ok", "expired")]),
      inventoryBefore(stored("ok")),
    );
    expect(notices).toHaveLength(1);
    expect(
      verificationNotices(run([result("expired")], []), inventoryBefore(stored("ok"))),
    ).toEqual([]);
    expect(verificationNotices(run([result("expired")], []), inventoryBefore())).toEqual([]);
  });

  it("a watched endpoint is found by its domain", () => {
    const r = result("expiring", { certificateName: undefined, critical: true });
    const record = stored("expiring", {}, "watch:www.contoso.com");
    expect(verificationNotices(run([r], []), inventoryBefore(record))).toMatchObject([
      { kind: "bad", from: "expiring", critical: true },
    ]);
  });
});
