import { describe, expect, it } from "vitest";
import { CertschedError } from "../../../../shared/lib/errors/family.js";
import { ConfigError, ValidationError } from "../../../../shared/lib/errors/input.js";

const problems = [
  { name: "CERTSCHED_BASE_URL", message: "is required" },
  { name: "CERTSCHED_API_KEY", message: "must not be empty" },
];

describe("ConfigError", () => {
  it("lists every problem by name in its message; the fault is ours", () => {
    const error = new ConfigError(problems);
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({
      name: "ConfigError",
      code: "CONFIG_INVALID",
      fault: "ours",
      retriable: false,
      problems,
    });
    expect(error.message).toBe(
      "Invalid configuration: CERTSCHED_BASE_URL: is required; CERTSCHED_API_KEY: must not be empty",
    );
  });
});

describe("ValidationError", () => {
  it("names what was invalid and each field; the caller's fault", () => {
    const error = new ValidationError("request", [
      { name: "certificateName", message: "is required" },
    ]);
    expect(error).toMatchObject({
      name: "ValidationError",
      code: "VALIDATION_FAILED",
      fault: "caller",
      issues: [{ name: "certificateName", message: "is required" }],
      message: "Invalid request: certificateName: is required",
    });
    expect(new ValidationError("body", problems).message).toBe(
      "Invalid body: CERTSCHED_BASE_URL: is required; CERTSCHED_API_KEY: must not be empty",
    );
  });
});
