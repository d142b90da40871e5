import { describe, expect, it } from "vitest";
import { jsonSyntaxProblem } from "../../../../shared/lib/text/jsonSyntax.js";

/** The error JSON.parse throws for `text`. */
function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error(`${text} parsed`);
}

describe("jsonSyntaxProblem", () => {
  it("keeps the position of the error but never the text around it", () => {
    const secret = "client-secret-4f1b9c";
    const problem = jsonSyntaxProblem(parseError(`{"password": "${secret}" "x": 1}`));

    expect(problem).toMatch(/^is not valid JSON \(error at position \d+\)$/);
    expect(problem).not.toContain(secret);
  });

  it("says when the text ends too early", () => {
    expect(jsonSyntaxProblem(parseError('{"password": "abc'))).toMatch(/^is not valid JSON/);
    expect(jsonSyntaxProblem(parseError(""))).toBe("is not valid JSON (it ends too early)");
  });

  it("says only that it is not JSON for anything else", () => {
    expect(jsonSyntaxProblem(new Error("something else"))).toBe("is not valid JSON");
    expect(jsonSyntaxProblem("not an error")).toBe("is not valid JSON");
  });
});
