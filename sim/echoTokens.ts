import type { SimResponse } from "./response.js";

/**
 * A service that copies the request's cloud tokens into the records it answers with (e.g.
 * a due list whose records quote accessToken and accessTokenKeyVault in every field).
 */
export interface EchoTokens {
  /**
   * Certificates whose certificateName quotes the tokens too. Default none: every other field
   * quotes them, but a name that does makes the record one certsched must refuse.
   */
  readonly inNamesOf?: readonly string[];
}

/** Fields left as they are: a date that quotes a token is no date, and the record is refused. */
const DATES = new Set(["expiryDate", "issueDate"]);

/**
 * `response` (a JSON record, or an array of them) with every string field, and every null one,
 * quoting `tokens` as `accessToken=...; accessTokenKeyVault=...`. Numbers and dates are kept.
 * Any other body is left as it is.
 */
export function echoTokens(
  response: SimResponse,
  tokens: { accessToken?: string; accessTokenKeyVault?: string },
  echo: EchoTokens,
): SimResponse {
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return response;
  }
  const quote = Object.entries(tokens)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => `${field}=${value}`)
    .join("; ");
  const names = new Set(echo.inNamesOf ?? []);
  const quoted = (record: unknown): unknown => {
    if (typeof record !== "object" || record === null || Array.isArray(record)) return record;
    const fields = record as Record<string, unknown>;
    const named = typeof fields.certificateName === "string" && names.has(fields.certificateName);
    return Object.fromEntries(
      Object.entries(fields).map(([key, value]) => {
        if (DATES.has(key) || (key === "certificateName" && !named)) return [key, value];
        if (typeof value === "string") return [key, `${value} (${quote})`];
        return [key, value === null ? quote : value];
      }),
    );
  };
  const echoed = Array.isArray(body) ? body.map(quoted) : quoted(body);
  return { ...response, body: JSON.stringify(echoed) };
}
