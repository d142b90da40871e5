import { describe, expect, it } from "vitest";
import { CliFailure, InputError, UsageError } from "../../../../shared/lib/errors/cli.js";
import { CertschedError } from "../../../../shared/lib/errors/family.js";

describe("UsageError", () => {
  it("is USAGE, the caller's fault, naming the command whose help helps", () => {
    const error = new UsageError("unknown flag --nope", "renew");
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({
      name: "UsageError",
      code: "USAGE",
      fault: "caller",
      retriable: false,
      message: "unknown flag --nope",
      command: "renew",
    });
    expect(new UsageError("unknown command").command).toBeUndefined();
  });
});

describe("InputError", () => {
  it("is INPUT_INVALID with its problems (none by default)", () => {
    const problems = [{ name: "body.json", message: "is not JSON" }];
    expect(new InputError("cannot read body.json", problems)).toMatchObject({
      name: "InputError",
      code: "INPUT_INVALID",
      fault: "caller",
      message: "cannot read body.json",
      problems,
    });
    expect(new InputError("missing").problems).toEqual([]);
  });
});

describe("CliFailure", () => {
  it("keeps its own code and exit code; the fault is ours", () => {
    const error = new CliFailure("PORT_IN_USE", "port 7071 is taken", 3);
    expect(error).toBeInstanceOf(CertschedError);
    expect(error).toMatchObject({
      name: "CliFailure",
      code: "PORT_IN_USE",
      fault: "ours",
      exitCode: 3,
      message: "port 7071 is taken",
    });
    expect(new CliFailure("PORT_NOT_ALLOWED", "m", 4)).toMatchObject({
      code: "PORT_NOT_ALLOWED",
      exitCode: 4,
    });
  });
});
