import type { ServerResponse } from "node:http";

/** A response computed by a handler; the server writes it (after any latency). */
export interface SimResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const TEXT = "text/plain; charset=utf-8";

/** Plain text: the service's success messages and all its error bodies (spec 7, rule 1). */
export function text(status: number, body: string): SimResponse {
  return { status, headers: { "content-type": TEXT }, body };
}

export function json(status: number, value: unknown, extraHeaders: Record<string, string> = {}) {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...extraHeaders },
    body: JSON.stringify(value),
  } satisfies SimResponse;
}

export function empty(status: number): SimResponse {
  return { status, headers: {}, body: "" };
}

/** Fault responses default to text/plain unless the fault names a content type itself. */
export function withDefaultContentType(headers: Record<string, string>): Record<string, string> {
  const named = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
  return named ? headers : { "content-type": TEXT, ...headers };
}

export function writeResponse(res: ServerResponse, response: SimResponse): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(response.status, {
    ...response.headers,
    "content-length": Buffer.byteLength(response.body),
  });
  res.end(response.body);
}
