import type { PreflightCheckName } from "../../core/preflight/preflight.js";
import type { CheckOutcome, PreflightCheckFunctions } from "./checkTypes.js";

// Placeholder until the checks land (issue 23, wave 1): every check is `unknown`.
const pending = (check: PreflightCheckName): CheckOutcome => ({
  check: { check, status: "unknown", detail: "not checked yet" },
});

/** The checks preflight runs (one file each in this folder). */
export const PREFLIGHT_CHECK_FUNCTIONS: PreflightCheckFunctions = {
  caa: async () => pending("caa"),
  dnsZone: async () => pending("dns-zone"),
  delegation: async () => pending("dns-delegation"),
  appBinding: async () => pending("app-binding"),
  httpChallenge: async () => pending("http-challenge"),
  access: () => pending("access"),
};
