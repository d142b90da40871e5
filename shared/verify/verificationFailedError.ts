import { CertschedError } from "../errors.js";

/**
 * Thrown by the verification timer after a run that must be recorded as failed (a certificate
 * not-landed, expired, mismatched, untrusted, critically expiring, or unreachable past its
 * grace), so the platform records the invocation as failed and the alert fires.
 */
export class VerificationFailedError extends CertschedError {
  /** Why, one line per failing certificate, naming it (InventoryVerification.problems). */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super("VERIFICATION_FAILED", `certsched verification failed: ${problems.join("; ")}`);
    this.name = "VerificationFailedError";
    this.problems = problems;
  }
}
