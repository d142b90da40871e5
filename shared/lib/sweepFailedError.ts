import { CertschedError } from "./errors.js";

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
