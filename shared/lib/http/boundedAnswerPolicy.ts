import type { Readable } from "node:stream";

/**
 * A pipeline policy for Azure's SDK clients (ARM for preflight, the customer's Key Vault for
 * verification, certsched's own vault for its secrets) that reads each answer's body up to a
 * number of bytes. The SDKs read a body whole before anything of ours sees it: an answer that
 * never ends, or a page of gigabytes, would take the process's memory with it. Added at
 * position "perRetry", it sits below the SDK's deserialization, so each attempt's body is
 * bounded before it is parsed, and the SDK parses the text it hands on as it would its own.
 *
 * It asks the SDK's HTTP client for the body as a stream (every status), reads at most
 * `maxBytes` of it (as the client hands it over: decoded, where it asked for compression), and
 * hands the text on. One byte more and the stream is destroyed (the connection closes) and the attempt
 * fails with AnswerTooLargeError.
 */

/** Code of AnswerTooLargeError, as an SDK's RestError carries its `code`. */
export const ANSWER_TOO_LARGE = "ANSWER_TOO_LARGE";

/**
 * An answer longer than the bound. Shaped as the SDKs' RestError (`statusCode`, `code`) because
 * it is thrown inside their pipeline and read where their errors are (armFailure.ts,
 * keyVaultFailure.ts): a 404, 401 or 403 still says what its status says, whatever its body.
 * Not a CertschedError: it never reaches a surface as itself.
 */
export class AnswerTooLargeError extends Error {
  readonly code = ANSWER_TOO_LARGE;
  constructor(
    readonly statusCode: number,
    readonly limitBytes: number,
  ) {
    super(`the answer (${statusCode}) is longer than ${sizeText(limitBytes)}, all certsched reads`);
    this.name = "AnswerTooLargeError";
  }
}

export function isAnswerTooLarge(error: unknown): error is { readonly limitBytes: number } {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === ANSWER_TOO_LARGE &&
    typeof (error as { limitBytes?: unknown }).limitBytes === "number"
  );
}

/** "1 MiB", "16 MiB", "65536 bytes": what a person reads in a detail. */
export function sizeText(bytes: number): string {
  const MiB = 1024 * 1024;
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

/** The parts of the SDKs' PipelineRequest this policy touches (two SDK generations share them). */
export interface RequestLike {
  streamResponseStatusCodes?: Set<number> | undefined;
}

/** The parts of the SDKs' PipelineResponse this policy touches. */
export interface ResponseLike {
  readonly status: number;
  bodyAsText?: string | null | undefined;
  readableStreamBody?: NodeJS.ReadableStream | undefined;
}

export interface BoundedAnswerPolicy {
  readonly name: string;
  sendRequest<Req extends RequestLike, Res extends ResponseLike>(
    request: Req,
    next: (request: Req) => Promise<Res>,
  ): Promise<Res>;
}

/** Any status: the SDKs' HTTP client reads this value as "stream every answer". */
const EVERY_STATUS = Number.POSITIVE_INFINITY;

/** The body's text, or AnswerTooLargeError once more than `maxBytes` came (the stream destroyed). */
async function readBounded(stream: Readable, status: number, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      bytes += buffer.length;
      if (bytes > maxBytes) throw new AnswerTooLargeError(status, maxBytes);
      chunks.push(buffer);
    }
  } finally {
    // Leaving the loop early (too large, or an abort) must close the connection, not drain it.
    if (!stream.readableEnded) stream.destroy();
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function boundedAnswerPolicy(maxBytes: number): BoundedAnswerPolicy {
  return {
    name: "certschedBoundedAnswer",
    async sendRequest<Req extends RequestLike, Res extends ResponseLike>(
      request: Req,
      next: (request: Req) => Promise<Res>,
    ): Promise<Res> {
      const wanted = request.streamResponseStatusCodes;
      request.streamResponseStatusCodes = new Set([EVERY_STATUS]);
      let response: Res;
      try {
        response = await next(request);
      } finally {
        // The layers above decide as they would have: none of ours asks for a stream.
        request.streamResponseStatusCodes = wanted;
      }
      const stream = response.readableStreamBody;
      if (stream === undefined) return response;
      // A caller that asked for this answer as a stream reads (and bounds) it itself.
      if (wanted?.has(EVERY_STATUS) || wanted?.has(response.status)) return response;
      const text = await readBounded(stream as Readable, response.status, maxBytes);
      response.readableStreamBody = undefined;
      response.bodyAsText = text;
      return response;
    },
  };
}
