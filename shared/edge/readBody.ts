import type { HttpRequest } from "@azure/functions";
import { BodyTooLargeError, UnsupportedMediaTypeError, ValidationError } from "../lib/errors.js";
import { jsonSyntaxProblem } from "../lib/text/jsonSyntax.js";

/** Largest request body we read (64 KiB): a create request is well under 4 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

async function readCapped(request: HttpRequest, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) throw new BodyTooLargeError(MAX_BODY_BYTES);
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
      throw new BodyTooLargeError(MAX_BODY_BYTES);
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks));
}

/**
 * The body as UTF-8, refusing anything else: a lenient decoder turns each invalid byte into
 * U+FFFD, so a password typed in latin-1 (`P\xe9ssw\xf6rd`) would be forwarded as `P�ssw�rd`
 * and the certificate would get a password its caller never chose. A leading UTF-8 byte order
 * mark is accepted and dropped (Windows tools write one; it is not part of the JSON).
 */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError("request", [
      {
        name: "(body)",
        message: `is not valid UTF-8 (invalid bytes near byte ${invalidUtf8Offset(bytes)}): send JSON encoded as UTF-8`,
      },
    ]);
  }
}

/**
 * Where a fatal decoder first gives up, fed one byte at a time: the invalid sequence ends at or
 * just before this offset (0-based). Only on the error path, on at most MAX_BODY_BYTES.
 */
function invalidUtf8Offset(bytes: Uint8Array): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (let i = 0; i < bytes.length; i += 1) {
    try {
      decoder.decode(bytes.subarray(i, i + 1), { stream: true });
    } catch {
      return i;
    }
  }
  return bytes.length;
}

/**
 * JSON is UTF-8 (RFC 8259 8.1) and application/json defines no charset, but a caller may declare
 * one. Any other than UTF-8 is refused: decoding declared latin-1 as UTF-8 could silently yield
 * other characters than the caller meant (the bytes of `Ã©` are valid UTF-8 for `é`).
 */
function declaresOtherCharset(contentType: string): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType)?.[1];
  return charset !== undefined && !/^utf-?8$/i.test(charset);
}

/**
 * Reads a JSON body: at most 64 KiB, Content-Type JSON (or absent) in UTF-8, valid UTF-8 (a
 * leading byte order mark dropped), valid JSON. Problems are typed errors the handler maps to
 * 413, 415 and 400; never a 500.
 */
export async function readJsonBody(request: HttpRequest, limit = MAX_BODY_BYTES): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  if (
    contentType &&
    (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType.trim()) ||
      declaresOtherCharset(contentType))
  ) {
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
