/**
 * Why a text is not valid JSON, without quoting it: V8's SyntaxError message includes an
 * excerpt of the text around the error, and the texts we parse hold passwords and secrets
 * (request bodies, local.settings.json, create request files). Only the position is kept.
 */
export function jsonSyntaxProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const position = /position (\d+)/.exec(message)?.[1];
  if (position !== undefined) return `is not valid JSON (error at position ${position})`;
  return /end of JSON input/i.test(message)
    ? "is not valid JSON (it ends too early)"
    : "is not valid JSON";
}
