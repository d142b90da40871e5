import { MAX_CHECK_DETAIL, type PreflightCheck } from "../../core/preflight/preflight.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import type { CheckOutcome } from "./checkTypes.js";

/**
 * `access`: what ARM (or the vault) said of certsched's credentials while the other
 * checks ran. A refused token (401) is `credentials-refused`, a missing role (403)
 * `role-missing`; 401 wins, as a role cannot be judged for a token that is refused.
 *
 * An outcome's `armAnswered` says whether its check called ARM: `true` some call was answered,
 * `false` calls were made and none answered (a timeout, a 5xx), absent no call was made.
 */

const detail = (text: string) => boundDetail(redact(text), MAX_CHECK_DETAIL);

const result = (
  status: PreflightCheck["status"],
  text: string,
  reason?: PreflightCheck["reason"],
): CheckOutcome => ({
  check: { check: "access", status, detail: detail(text), ...(reason ? { reason } : {}) },
});

export function accessCheck(outcomes: readonly CheckOutcome[]): CheckOutcome {
  const refusedBy = (status: 401 | 403) => outcomes.filter((o) => o.refused?.status === status);
  const unauthorized = refusedBy(401);
  const forbidden = refusedBy(403);
  const named = (list: readonly CheckOutcome[]) => list.map((o) => o.check.check).join(", ");
  const first = unauthorized[0] ?? forbidden[0];
  if (first?.refused?.status === 401) {
    return result(
      "fail",
      `certsched's credentials were refused (401) for ${named(unauthorized)}: ${first.refused.detail}`,
      "credentials-refused",
    );
  }
  if (first?.refused?.status === 403) {
    return result(
      "fail",
      `the app's identity lacks a role (403) for ${named(forbidden)}: ${first.refused.detail}`,
      "role-missing",
    );
  }
  const called = outcomes.filter((o) => o.armAnswered !== undefined);
  if (called.some((o) => o.armAnswered === true)) {
    return result(
      "pass",
      `Azure Resource Manager accepted certsched's credentials (${named(called.filter((o) => o.armAnswered))})`,
    );
  }
  if (called.length > 0) {
    return result(
      "unknown",
      `Azure Resource Manager did not answer (${named(called)}): certsched's access could not be checked`,
    );
  }
  return result("pass", "no check needed Azure Resource Manager: there was no access to refuse");
}
