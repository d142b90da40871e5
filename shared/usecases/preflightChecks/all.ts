import type { PreflightCheckName } from "../../core/preflight/preflight.js";
import { caaCheck } from "./caaCheck.js";
import type { CheckOutcome, PreflightCheckFunctions } from "./checkTypes.js";
import { delegationCheck } from "./delegationCheck.js";
import { httpChallengeCheck } from "./httpChallengeCheck.js";

// Placeholder until the checks land (issue 23, wave 1): every check is `unknown`.
const pending = (check: PreflightCheckName): CheckOutcome => ({
  check: { check, status: "unknown", detail: "not checked yet" },
});

/** The checks preflight runs (one file each in this folder). */
export const PREFLIGHT_CHECK_FUNCTIONS: PreflightCheckFunctions = {
  caa: caaCheck,
  dnsZone: async () => pending("dns-zone"),
  delegation: delegationCheck,
  appBinding: async () => pending("app-binding"),
  httpChallenge: httpChallengeCheck,
  access: () => pending("access"),
};
