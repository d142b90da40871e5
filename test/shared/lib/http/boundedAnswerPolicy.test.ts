import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ANSWER_TOO_LARGE,
  AnswerTooLargeError,
  boundedAnswerPolicy,
  isAnswerTooLarge,
  type RequestLike,
  type ResponseLike,
  sizeText,
} from "../../../../shared/lib/http/boundedAnswerPolicy.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/*
 * The policy on its own, over a body split in any way: the text when it fits, the error when it
 * does not, the stream closed either way. Over real sockets and the real SDKs: armLookups.test.ts
 * (ARM), keyVaultProbe.answers.test.ts (the customer's vault), secretStore.test.ts (our vault).
 */

/** A body of `length` bytes (multi-byte characters included), cut at `cuts`. */
function chunksOf(text: string, cuts: readonly number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    if (to > from) chunks.push(bytes.subarray(from, to));
    from = Math.max(from, to);
  }
  return chunks;
}

async function send(
  maxBytes: number,
  status: number,
  chunks: readonly Buffer[],
  wanted?: Set<number>,
): Promise<{
  request: RequestLike;
  asked: Set<number> | undefined;
  stream: Readable;
  result: unknown;
}> {
  const stream = Readable.from(chunks);
  const request: RequestLike = { streamResponseStatusCodes: wanted };
  let asked: Set<number> | undefined;
  const next = async (r: RequestLike): Promise<ResponseLike> => {
    asked = r.streamResponseStatusCodes;
    return { status, readableStreamBody: stream };
  };
  let result: unknown;
  try {
    result = await boundedAnswerPolicy(maxBytes).sendRequest(request, next);
  } catch (error) {
    result = error;
  }
  return { request, asked, stream, result };
}

describe("boundedAnswerPolicy", () => {
  it("hands on the text of a body up to the bound, and fails one byte over it, however the body is split", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom(200, 403, 404, 500),
        async (text, cuts, slack, status) => {
          const length = Buffer.byteLength(text);
          const maxBytes = Math.max(0, length + slack);
          const { request, asked, stream, result } = await send(
            maxBytes,
            status,
            chunksOf(text, cuts),
          );
          // Every status is asked for as a stream, and the caller's choice is put back.
          expect(asked?.has(Number.POSITIVE_INFINITY)).toBe(true);
          expect(request.streamResponseStatusCodes).toBeUndefined();
          if (length <= maxBytes) {
            expect(result).toEqual({ status, bodyAsText: text, readableStreamBody: undefined });
          } else {
            expect(result).toBeInstanceOf(AnswerTooLargeError);
            expect(result).toMatchObject({
              code: ANSWER_TOO_LARGE,
              statusCode: status,
              limitBytes: maxBytes,
            });
            expect(isAnswerTooLarge(result)).toBe(true);
            expect(stream.destroyed).toBe(true);
          }
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("leaves a stream the caller asked for as it is (the caller reads it), and an answer without one", async () => {
    const body = [Buffer.alloc(100, 0x61)];
    const wanted = new Set([200]);
    const { request, result } = await send(10, 200, body, wanted);
    expect(request.streamResponseStatusCodes).toBe(wanted);
    expect((result as ResponseLike).readableStreamBody).toBeDefined();
    expect((result as ResponseLike).bodyAsText).toBeUndefined();

    const plain: ResponseLike = { status: 204, bodyAsText: "" };
    const policy = boundedAnswerPolicy(10);
    expect(await policy.sendRequest<RequestLike, ResponseLike>({}, async () => plain)).toBe(plain);
  });

  it("puts the caller's choice back when the request fails", async () => {
    const request: RequestLike = {};
    const failing = async (): Promise<ResponseLike> => {
      throw new Error("ECONNREFUSED");
    };
    await expect(boundedAnswerPolicy(10).sendRequest(request, failing)).rejects.toThrow(
      "ECONNREFUSED",
    );
    expect(request.streamResponseStatusCodes).toBeUndefined();
  });

  it("names its bound as people read it", () => {
    expect(sizeText(16 * 1024 * 1024)).toBe("16 MiB");
    expect(sizeText(1024 * 1024)).toBe("1 MiB");
    expect(sizeText(1024 * 1024 + 1)).toBe("1048577 bytes");
    expect(new AnswerTooLargeError(200, 1024 * 1024).message).toBe(
      "the answer (200) is longer than 1 MiB, all certsched reads",
    );
    expect(isAnswerTooLarge(new Error("x"))).toBe(false);
    expect(isAnswerTooLarge({ code: ANSWER_TOO_LARGE })).toBe(false);
    expect(isAnswerTooLarge(null)).toBe(false);
  });
});
