import { describe, expect, it } from "vitest";
import { CertschedError } from "../../../../shared/lib/errors/family.js";
import {
  MAX_LISTED_PROBLEMS,
  SweepFailedError,
  UnstoredError,
  VerificationFailedError,
} from "../../../../shared/lib/errors/outcomes.js";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `p${i + 1}`);

describe("SweepFailedError", () => {
  it("joins every problem into its message and keeps them", () => {
    const error = new SweepFailedError(["a failed", "b failed"]);
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({
      name: "SweepFailedError",
      code: "SWEEP_FAILED",
      fault: "upstream",
      problems: ["a failed", "b failed"],
      message: "certsched renewal sweep failed: a failed; b failed",
    });
  });
});

describe("VerificationFailedError", () => {
  it("lists up to MAX_LISTED_PROBLEMS problems in full", () => {
    expect(MAX_LISTED_PROBLEMS).toBe(20);
    const error = new VerificationFailedError(lines(20));
    expect(error.message).toBe(`certsched verification failed: ${lines(20).join("; ")}`);
    expect(error).toMatchObject({ name: "VerificationFailedError", code: "VERIFICATION_FAILED" });
  });

  it("past that, counts the rest; keeps every problem", () => {
    const error = new VerificationFailedError(lines(21));
    expect(error.message).toBe(
      `certsched verification failed: ${lines(20).join("; ")}; …and 1 more`,
    );
    expect(error.problems).toHaveLength(21);
    expect(new VerificationFailedError(lines(25)).message.endsWith("; …and 5 more")).toBe(true);
  });
});

describe("UnstoredError", () => {
  it("is Storage's fault whatever its code, naming the certificates not stored", () => {
    const cause = new Error("412");
    const error = new UnstoredError("VALIDATION_FAILED", "rows invalid", ["b", "a"], {
      retriable: true,
      cause,
    });
    expect(error).toMatchObject({
      name: "UnstoredError",
      code: "VALIDATION_FAILED",
      fault: "upstream",
      retriable: true,
      certificateNames: ["b", "a"],
      message: "rows invalid",
    });
    expect(error.cause).toBe(cause);
    expect(new UnstoredError("LEDGER_UNAVAILABLE", "m", []).retriable).toBe(false);
  });

  it("an explicit fault still wins", () => {
    expect(new UnstoredError("LEDGER_UNAVAILABLE", "m", [], { fault: "ours" }).fault).toBe("ours");
  });
});
