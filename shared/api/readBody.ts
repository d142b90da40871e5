import type { HttpRequest } from "@azure/functions";
import { ValidationError } from "../errors.js";
import { jsonSyntaxProblem } from "../jsonSyntax.js";

/** Largest request body we read (64 KiB): a create request is well under 4 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A body too large to read; answered 413 without reading the rest. */
export class BodyTooLargeError extends Error {
  constructor() {
    super(`request body is larger than ${MAX_BODY_BYTES} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/** The request's Content-Type is not JSON; answered 415. */
export class UnsupportedMediaTypeError extends Error {
  constructor(readonly contentType: string) {
    super("request body must be application/json");
    this.name = "UnsupportedMediaTypeError";
  }
}

async function readCapped(request: HttpRequest, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) throw new BodyTooLargeError();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads a JSON body: at most 64 KiB, Content-Type JSON (or absent), valid JSON. Problems are
 * typed errors the handler maps to 413, 415 and 400; never a 500.
 */
export async function readJsonBody(request: HttpRequest, limit = MAX_BODY_BYTES): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  if (contentType && !/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType.trim())) {
    throw new UnsupportedMediaTypeError(contentType);
  }
  const text = await readCapped(request, limit);
  if (text.trim() === "") {
    throw new ValidationError("request", [
      { name: "(body)", message: "is required: send a JSON object" },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError("request", [{ name: "(body)", message: jsonSyntaxProblem(error) }]);
  }
}
