import { describe, expect, it } from "vitest";
import { reportFailure } from "../../../../cli/failure.js";
import type { Io } from "../../../../cli/io.js";
import { QuotaExhaustedError } from "../../../../shared/core/quota/budgetRules.js";
import { errorResponse } from "../../../../shared/edge/errorResponse.js";
import {
  BodyTooLargeError,
  CertschedError,
  CliFailure,
  ConfigError,
  FAULT_OF,
  ForbiddenError,
  hasCode,
  InputError,
  OutcomeUnknownError,
  SweepFailedError,
  TokenError,
  UnstoredError,
  UnsupportedMediaTypeError,
  UpstreamError,
  UsageError,
  ValidationError,
  VerificationFailedError,
} from "../../../../shared/lib/errors.js";

const timeout = new UpstreamError("UPSTREAM_TIMEOUT", "create", "create: no answer");

/** Every class of the family, as thrown, with the code and fault it must keep. */
const MEMBERS: ReadonlyArray<readonly [Error, string, string, string]> = [
  [
    new ConfigError([{ name: "X", message: "is required" }]),
    "ConfigError",
    "CONFIG_INVALID",
    "ours",
  ],
  [new ValidationError("request", []), "ValidationError", "VALIDATION_FAILED", "caller"],
  [
    new UpstreamError("UPSTREAM_FAILED", "list", "m"),
    "UpstreamError",
    "UPSTREAM_FAILED",
    "upstream",
  ],
  [
    new TokenError("TOKEN_REFUSED", "m", { resource: "r" }),
    "TokenError",
    "TOKEN_REFUSED",
    "upstream",
  ],
  [new ForbiddenError("certsched.Operator", "ann"), "ForbiddenError", "FORBIDDEN", "caller"],
  [
    new UnstoredError("INVENTORY_UNAVAILABLE", "m", ["a"]),
    "UnstoredError",
    "INVENTORY_UNAVAILABLE",
    "upstream",
  ],
  [
    new UnstoredError("VALIDATION_FAILED", "m", ["a"]),
    "UnstoredError",
    "VALIDATION_FAILED",
    "upstream",
  ],
  [new SweepFailedError(["x"]), "SweepFailedError", "SWEEP_FAILED", "upstream"],
  [
    new VerificationFailedError(["x"]),
    "VerificationFailedError",
    "VERIFICATION_FAILED",
    "upstream",
  ],
  [new BodyTooLargeError(65536), "BodyTooLargeError", "PAYLOAD_TOO_LARGE", "caller"],
  [
    new UnsupportedMediaTypeError("text/plain"),
    "UnsupportedMediaTypeError",
    "UNSUPPORTED_MEDIA_TYPE",
    "caller",
  ],
  [new InputError("bad file"), "InputError", "INPUT_INVALID", "caller"],
  [new CliFailure("PORT_IN_USE", "m", 1), "CliFailure", "PORT_IN_USE", "ours"],
  [new UsageError("bad flag"), "UsageError", "USAGE", "caller"],
  [
    new OutcomeUnknownError("create", "c1", "why", timeout),
    "OutcomeUnknownError",
    "UPSTREAM_TIMEOUT",
    "upstream",
  ],
];

describe("one error family (floor plan rule 6)", () => {
  it.each(MEMBERS)(
    "%s is a CertschedError with its name, code and fault",
    (error, name, code, fault) => {
      expect(error).toBeInstanceOf(CertschedError);
      expect(error.name).toBe(name);
      expect((error as CertschedError).code).toBe(code);
      expect((error as CertschedError).fault).toBe(fault);
    },
  );

  it("the one member outside lib, QuotaExhaustedError, has its code and fault too", () => {
    const usage = {
      quota: { requests: 10, windowMs: 1, text: "10/7d" },
      used: 10,
      reads: 10,
      others: 0,
      thisRun: 0,
    };
    const error = new QuotaExhaustedError("read", usage as never, 1);
    expect(error.code).toBe("QUOTA_EXHAUSTED");
    expect(error.fault).toBe("ours");
  });

  it("every code has a fault", () => {
    for (const fault of Object.values(FAULT_OF))
      expect(["ours", "caller", "upstream"]).toContain(fault);
  });

  it("hasCode matches the class that carries the code's fields, not another class with that code", () => {
    expect(hasCode(new ValidationError("request", []), "VALIDATION_FAILED")).toBe(true);
    expect(hasCode(new UnstoredError("VALIDATION_FAILED", "m", ["a"]), "VALIDATION_FAILED")).toBe(
      false,
    );
    expect(hasCode(new Error("x"), "USAGE")).toBe(false);
  });

  it("OutcomeUnknownError's message keeps its words", () => {
    expect(new OutcomeUnknownError("renew", "a b", "no time", timeout).message).toBe(
      "Renewal of a b: the service did not answer in time (create: no answer), and no time: it may still have been scheduled; unknown: check with certsched get a b (GET /api/certificates/a%20b) in a few minutes",
    );
  });
});

describe("the surfaces branch on code and fault", () => {
  const status = (error: unknown) => errorResponse(error, "inv").status;

  it("HTTP: the statuses of the classes moved in are unchanged", () => {
    expect(status(new BodyTooLargeError(65536))).toBe(413);
    expect(status(new UnsupportedMediaTypeError("text/plain"))).toBe(415);
    expect(status(new ValidationError("request", []))).toBe(400);
    expect(status(new ForbiddenError("certsched.Reader", "ann"))).toBe(403);
    expect(status(new ConfigError([]))).toBe(503);
    // Rows in storage that fail validation are not the caller's mistake (as before: 502).
    expect(status(new UnstoredError("VALIDATION_FAILED", "m", ["a"]))).toBe(502);
    // The CLI's errors never reach the HTTP edge; if one did, it would be an internal error.
    expect(status(new UsageError("x"))).toBe(500);
    expect(status(new CliFailure("PORT_IN_USE", "m", 1))).toBe(500);
    expect(status(new Error("x"))).toBe(500);
  });

  function io(): Io & { err: string[]; out: string[] } {
    const err: string[] = [];
    const out: string[] = [];
    return {
      env: {},
      cwd: "/nowhere",
      stdout: { write: (t: string) => out.push(t), isTTY: false, columns: undefined },
      stderr: { write: (t: string) => err.push(t), isTTY: false, columns: undefined },
      untilInterrupted: () => new Promise(() => {}),
      err,
      out,
    } as Io & { err: string[]; out: string[] };
  }

  it("CLI: exit codes and codes of the classes moved in are unchanged", () => {
    const run = (error: unknown) => {
      const o = io();
      const exit = reportFailure(error, o, { json: true, command: "get" });
      return { exit, code: JSON.parse(o.out.join("")).error.code as string, err: o.err.join("") };
    };
    expect(run(new UsageError("bad flag"))).toMatchObject({ exit: 2, code: "USAGE" });
    expect(run(new UsageError("bad flag")).err).toContain('Run "certsched get --help" for usage.');
    expect(run(new InputError("bad file"))).toMatchObject({ exit: 2, code: "INPUT_INVALID" });
    expect(run(new CliFailure("PORT_IN_USE", "port 1 is already in use", 1))).toMatchObject({
      exit: 1,
      code: "PORT_IN_USE",
    });
    expect(run(new UnstoredError("VALIDATION_FAILED", "m", ["a"]))).toMatchObject({
      exit: 1,
      code: "VALIDATION_FAILED",
    });
    expect(run(new Error("boom"))).toMatchObject({ exit: 1, code: "INTERNAL" });
  });
});
