import type { PreflightProbes } from "../../shared/core/ports/preflightProbes.js";
import type {
  FailReason,
  PreflightCheck,
  PreflightCheckName,
} from "../../shared/core/preflight/preflight.js";
import type {
  CheckOutcome,
  PreflightCheckFunctions,
} from "../../shared/usecases/preflightChecks/checkTypes.js";

/**
 * Preflight for the tests of the surfaces that show and tell its results (the functions, the
 * webhook, the alert line): the check functions are injected (runPreflight takes them in its
 * ports, as the use case's own suites do), so a test decides which certificate fails which check.
 * The checks themselves, and the probes under them, have their own suites over the simulators.
 */

/** A check that fails, for one certificate. */
export interface SeededFailure {
  readonly check: Exclude<PreflightCheckName, "access">;
  readonly reason: FailReason;
  readonly detail: string;
}

/**
 * The check functions, every one passing except the failures given per certificate name (a
 * check the certificate's record does not call for is not run, as in production).
 */
export function seededChecks(
  failures: Readonly<Record<string, readonly SeededFailure[]>> = {},
): PreflightCheckFunctions {
  const outcome = (certificateName: string, check: PreflightCheckName): CheckOutcome => {
    const failure = failures[certificateName]?.find((f) => f.check === check);
    const result: PreflightCheck = failure
      ? { check, status: "fail", reason: failure.reason, detail: failure.detail }
      : { check, status: "pass", detail: `${check} passed` };
    return { check: result, armAnswered: true };
  };
  return {
    caa: async (s) => outcome(s.certificateName, "caa"),
    dnsZone: async (s) => ({
      ...outcome(s.certificateName, "dns-zone"),
      zone: { name: s.rootDomain, nameServers: ["ns1-01.azure-dns.com"] },
    }),
    delegation: async (s) => outcome(s.certificateName, "dns-delegation"),
    appBinding: async (s) => outcome(s.certificateName, "app-binding"),
    httpChallenge: async (s) => outcome(s.certificateName, "http-challenge"),
    // The access check sees only the others' outcomes: it passes here (its own suite fails it).
    access: () => ({ check: { check: "access", status: "pass", detail: "access passed" } }),
  };
}

/**
 * Probes that decide nothing (every answer `unknown`): for the runtime's seam where the checks
 * are injected, or where a test looks only at the shape of what the checks report.
 */
export function undecidedProbes(): PreflightProbes {
  const detail = "not decided in this test";
  return {
    dns: {
      caa: async () => ({ kind: "unknown", detail }),
      ns: async () => ({ kind: "unknown", detail }),
    },
    arm: {
      dnsZone: async () => ({ kind: "unknown", detail }),
      hostNameBindings: async () => ({ kind: "unknown", detail }),
      sites: async () => ({ kind: "unknown", detail }),
    },
    challenge: { reach: async () => ({ kind: "unreachable", detail }) },
  };
}
