import { accessCheck } from "./accessCheck.js";
import { appBindingCheck } from "./appBindingCheck.js";
import { caaCheck } from "./caaCheck.js";
import type { PreflightCheckFunctions } from "./checkTypes.js";
import { delegationCheck } from "./delegationCheck.js";
import { dnsZoneCheck } from "./dnsZoneCheck.js";
import { httpChallengeCheck } from "./httpChallengeCheck.js";

/** The checks preflight runs (docs/contracts/preflight.md), one file each in this folder. */
export const PREFLIGHT_CHECK_FUNCTIONS: PreflightCheckFunctions = {
  caa: caaCheck,
  dnsZone: dnsZoneCheck,
  delegation: delegationCheck,
  appBinding: appBindingCheck,
  httpChallenge: httpChallengeCheck,
  access: accessCheck,
};
