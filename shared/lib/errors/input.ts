import { CertschedError } from "./family.js";

/** One problem with one setting or field: which one, and which rule it broke. */
export interface Problem {
  /** Setting name (e.g. CERTSCHED_BASE_URL) or field path (e.g. cloudAppServiceSlotName). */
  readonly name: string;
  readonly message: string;
}

export class ConfigError extends CertschedError {
  readonly problems: readonly Problem[];

  constructor(problems: readonly Problem[]) {
    super(
      "CONFIG_INVALID",
      `Invalid configuration: ${problems.map((p) => `${p.name}: ${p.message}`).join("; ")}`,
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export class ValidationError extends CertschedError {
  readonly issues: readonly Problem[];

  constructor(what: string, issues: readonly Problem[]) {
    super(
      "VALIDATION_FAILED",
      `Invalid ${what}: ${issues.map((p) => `${p.name}: ${p.message}`).join("; ")}`,
    );
    this.name = "ValidationError";
    this.issues = issues;
  }
}
