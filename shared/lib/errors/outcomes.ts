import { CertschedError, type CertschedErrorOptions, type ErrorCode } from "./family.js";

/** Thrown after a sweep that must be recorded as failed, so the platform's alerts fire. */
export class SweepFailedError extends CertschedError {
  /** Why, one line each: the summary's problems. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super("SWEEP_FAILED", `certsched renewal sweep failed: ${problems.join("; ")}`);
    this.name = "SweepFailedError";
    this.problems = problems;
  }
}

/** Problems the message lists; the rest are counted (the summary line names every one). */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * Thrown by the verification timer after a run that must be recorded as failed (a certificate
 * not-landed, not-synced, expired, mismatched, untrusted, with an incomplete chain, weak, too long, critically
 * expiring, or unreachable past its grace), so the platform records the invocation as failed and the alert fires.
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

/** A Certificate Transparency watch that needs a person: unexpected issuances, a refused key. */
export class TransparencyAlertError extends CertschedError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.length - listed.length;
    super(
      "TRANSPARENCY_ALERT",
      `certsched ct watch needs attention: ${listed.join("; ")}${more > 0 ? `; …and ${more} more` : ""}`,
    );
    this.name = "TransparencyAlertError";
    this.problems = problems;
  }
}

/**
 * Some certificates' rows could not be written; every other row of the same call was. Carries
 * the names of those not stored, so a warning names them and not the call's first few (which
 * could be three certificates that were stored, not the one that was not).
 * Its fault is Storage's, whatever the code: rows it refused, or stored rows that fail
 * validation (VALIDATION_FAILED here is no caller's mistake: a person corrects the rows).
 */
export class UnstoredError extends CertschedError {
  /** The certificates whose rows were not written, in the order they were given. */
  readonly certificateNames: readonly string[];

  constructor(
    code: ErrorCode,
    message: string,
    certificateNames: readonly string[],
    options: CertschedErrorOptions = {},
  ) {
    super(code, message, { fault: "upstream", ...options });
    this.name = "UnstoredError";
    this.certificateNames = certificateNames;
  }
}

/**
 * Thrown by the estate timer after a run in which certificates certsched does not keep entered
 * the unmanaged-and-expiring set, so the platform records the invocation as failed.
 */
export class EstateAlertError extends CertschedError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.length - listed.length;
    super(
      "ESTATE_ALERT",
      `certsched estate needs attention: ${listed.join("; ")}${more > 0 ? `; …and ${more} more` : ""}`,
    );
    this.name = "EstateAlertError";
    this.problems = problems;
  }
}
