import { runInNewContext } from "node:vm";
import { RestError } from "@azure/data-tables";
import { describe, expect, it } from "vitest";
import { ensureError } from "../../../shared/lib/errors.js";

describe("ensureError", () => {
  it("keeps an Error as it is", () => {
    const error = new RestError("The table specified does not exist.", { statusCode: 404 });
    expect(ensureError(error)).toBe(error);
  });

  it("recognises an Error made in another realm (regression: 'Non-error thrown: RestError')", () => {
    const foreign: unknown = runInNewContext(
      'const e = new Error("socket hang up\\n"); e.name = "RestError"; e',
    );
    expect(foreign instanceof Error).toBe(false);
    const error = ensureError(foreign);
    expect(error.message).not.toContain("Non-error thrown");
    expect(error.name).toBe("RestError");
    expect(String(error.message)).toContain("socket hang up");
  });

  it("turns an error-like object into an Error with its name and message, trailing newline trimmed", () => {
    const thrown = { name: "RestError", message: "Server busy\n", statusCode: 503 };
    const error = ensureError(thrown);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("RestError");
    expect(error.message).toBe("Server busy");
    expect(error.cause).toBe(thrown);
  });

  it("still says so for a value that is no error at all", () => {
    expect(ensureError("plain text").message).toBe("plain text");
    expect(ensureError(42).message).toBe("Non-error thrown: 42");
    expect(ensureError({ name: 1, message: "x" }).message).toBe(
      "Non-error thrown: [object Object]",
    );
  });
});
