import { CertschedError } from "./errors.js";

/** Problems the message lists; the rest are counted (the summary line names every one). */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * Thrown by the verification timer after a run that must be recorded as failed (a certificate
 * not-landed, expired, mismatched, untrusted, critically expiring, or unreachable past its
 * grace), so the platform records the invocation as failed and the alert fires.
 */
export class VerificationFailedError extends CertschedError {
  /** Why, one line per failing certificate, naming it (InventoryVerification.problems). */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.length - listed.length;
    super(
      "VERIFICATION_FAILED",
      `certsched verification failed: ${listed.join("; ")}${more > 0 ? `; …and ${more} more` : ""}`,
    );
    this.name = "VerificationFailedError";
    this.problems = problems;
  }
}
