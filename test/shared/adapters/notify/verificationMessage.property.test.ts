import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  InventoryRecord,
  VerificationRecord,
} from "../../../../shared/core/ports/inventory.js";
import type {
  InventoryResult,
  StatusChange,
} from "../../../../shared/core/verification/inventoryResult.js";
import { needsPerson } from "../../../../shared/core/verification/inventoryResult.js";
import type { InventoryStatus } from "../../../../shared/core/verification/judge.js";
import { STATUSES } from "../../../../shared/core/verification/judge.js";
import { verificationNotices } from "../../../../shared/core/verification/notices.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const AT = new Date("2026-03-01T04:00:00.000Z");
const HOUR = 3_600_000;
const GRACE = 24 * HOUR;
const ALL: readonly InventoryStatus[] = [...STATUSES, "unverifiable"];

/** A reading as the run gives it: critical only for expiring, pastGrace only for unreachable. */
const reading = fc.record({
  status: fc.constantFrom(...ALL),
  critical: fc.boolean(),
  pastGrace: fc.boolean(),
});

/** A stored verification: how long before the run, and how long it had been unreachable then. */
const stored = fc.record({
  status: fc.constantFrom(...ALL),
  critical: fc.boolean(),
  hoursBefore: fc.integer({ min: 1, max: 48 }),
  unreachableHours: fc.integer({ min: 0, max: 48 }),
});

const certificate = fc.record({ now: reading, before: fc.option(stored, { nil: undefined }) });

type Now = { status: InventoryStatus; critical: boolean; pastGrace: boolean };
const normalise = (r: Now) => ({
  status: r.status,
  critical: r.status === "expiring" && r.critical,
  pastGrace: r.status === "unreachable" && r.pastGrace,
});

describe("verificationNotices, for every run", () => {
  it("says each certificate once: into a state that needs a person, or back to ok from one", () => {
    fc.assert(
      fc.property(fc.array(certificate, { minLength: 1, maxLength: 8 }), (certificates) => {
        const results: InventoryResult[] = [];
        const records: InventoryRecord[] = [];
        const changes: StatusChange[] = [];
        const expected = new Map<string, "bad" | "recovered">();
        certificates.forEach((c, i) => {
          const name = `c${i}`;
          const domain = `${name}.test`;
          const now = normalise(c.now);
          results.push({
            domain,
            certificateName: name,
            source: "tls",
            status: now.status,
            ...(now.critical ? { critical: true as const } : {}),
            ...(now.status === "unreachable" ? { pastGrace: now.pastGrace } : {}),
            detail: "",
          });
          let before: VerificationRecord | undefined;
          if (c.before) {
            const at = new Date(AT.getTime() - c.before.hoursBefore * HOUR);
            const status = c.before.status;
            before = {
              at,
              status,
              source: "tls",
              domain,
              detail: "",
              ...(status === "expiring" && c.before.critical ? { critical: true } : {}),
              ...(status === "unreachable"
                ? { unreachableSince: new Date(at.getTime() - c.before.unreachableHours * HOUR) }
                : {}),
            };
          }
          records.push({
            certificateName: name,
            source: "due-list",
            firstSeen: AT,
            lastSeen: AT,
            ...(before ? { lastVerification: before } : {}),
          });
          // A change as the run reports it: the status or its criticality differs.
          const same =
            before !== undefined &&
            before.status === now.status &&
            (before.critical === true) === now.critical;
          if (!same) {
            changes.push({
              certificateName: name,
              domain,
              ...(before ? { from: before.status } : {}),
              to: now.status,
              critical: now.critical,
            });
          }
          const beforeNeeded =
            before !== undefined &&
            needsPerson({
              status: before.status,
              critical: before.critical,
              pastGrace:
                before.unreachableSince !== undefined &&
                before.at.getTime() - before.unreachableSince.getTime() >= GRACE,
            });
          if (needsPerson(now) && !(same && beforeNeeded)) expected.set(name, "bad");
          else if (now.status === "ok" && before && before.status !== "ok" && beforeNeeded) {
            expected.set(name, "recovered");
          }
        });
        const notices = verificationNotices(
          { at: AT, results, counts: {}, failed: false, problems: [], changes },
          { records, unreachableAfterMs: GRACE },
        );
        const said = new Map(notices.map((n) => [n.certificateName ?? "", n.kind]));
        expect(said.size).toBe(notices.length);
        expect(said).toEqual(expected);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});
