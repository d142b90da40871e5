import type { IncomingHttpHeaders, IncomingMessage } from "node:http";

/** Bodies above this are refused with 413; real requests are a few kilobytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The client closed the connection before the body was whole: what had arrived. */
export class CutRequest extends Error {
  constructor(readonly partial: string) {
    super("request body cut short by the client");
  }
}

/**
 * The whole body as UTF-8, or undefined when it is larger than MAX_BODY_BYTES. Throws CutRequest
 * when the client goes away before the body is whole: such a request is never acted on.
 */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      // Keep draining so the 413 can still be written on the same connection.
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(buffer);
    }
  } catch {
    throw new CutRequest(Buffer.concat(chunks).toString("utf8"));
  }
  if (!req.complete) throw new CutRequest(Buffer.concat(chunks).toString("utf8"));
  return tooLarge ? undefined : Buffer.concat(chunks).toString("utf8");
}

export function recordHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const recorded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) recorded[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return recorded;
}
