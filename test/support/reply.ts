import type { HttpResponseInit } from "@azure/functions";

/** A handler's response as a caller sees it. */
export interface Reply {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Record<string, string>;
  readonly text: string;
  /** The parsed body; undefined when it is not JSON. */
  readonly body: unknown;
}

export function toReply(response: HttpResponseInit): Reply {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((response.headers ?? {}) as Record<string, string>)) {
    headers[name.toLowerCase()] = String(value);
  }
  const text = typeof response.body === "string" ? response.body : "";
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status ?? 200, headers, text, body };
}
