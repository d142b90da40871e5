import { randomUUID } from "node:crypto";
import {
  HttpRequest,
  type HttpRequestInit,
  InvocationContext,
  type LogLevel,
  type Timer,
} from "@azure/functions";

/**
 * What the Functions host hands a handler, built without the host: HttpRequest (buffered or
 * streamed), InvocationContext and the timer argument.
 */

const BASE = "http://localhost:7071/api/";

export interface RequestInit {
  readonly method?: string;
  /** Route below /api/, e.g. "certificates/due". */
  readonly path: string;
  readonly query?: Record<string, string>;
  /** A raw query string without "?", used as given (after `query`'s pairs are dropped). */
  readonly rawQuery?: string;
  readonly params?: Record<string, string>;
  /** Sent as application/json unless `headers` names another content type. */
  readonly json?: unknown;
  /** A raw body; give the content type in `headers`. */
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

/** An HttpRequest as the host builds it for a buffered request. */
export function httpRequest(init: RequestInit): HttpRequest {
  const url = new URL(init.path, BASE);
  for (const [key, value] of Object.entries(init.query ?? {})) url.searchParams.set(key, value);
  if (init.rawQuery !== undefined) url.search = init.rawQuery;
  const headers: Record<string, string> = { ...init.headers };
  let body: HttpRequestInit["body"];
  if (init.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = { string: JSON.stringify(init.json) };
  } else if (typeof init.body === "string") {
    body = { string: init.body };
  } else if (init.body) {
    body = { bytes: init.body };
  }
  return new HttpRequest({
    method: init.method ?? "POST",
    url: url.href,
    headers,
    params: init.params ?? {},
    ...(body ? { body } : {}),
  });
}

/** What `streamingRequest` has handed out so far. */
export interface StreamProgress {
  /** Bytes the handler pulled from the stream. */
  pulled(): number;
  /** Whether the handler cancelled the stream (stopped reading). */
  cancelled(): boolean;
}

/**
 * An HttpRequest whose body streams in 16 KiB chunks, as the host's HTTP streaming mode delivers
 * it (a native Request with a stream body; see the library's createStreamRequest). The body is
 * `content`, or `totalBytes` (default: without end, for as long as the handler reads) of a JSON
 * string that never closes. Nothing tells the handler the size up front unless `headers` does.
 */
export function streamingRequest(
  init: { path: string; content?: string; totalBytes?: number; headers?: Record<string, string> },
  chunkBytes = 16 * 1024,
): { request: HttpRequest; progress: StreamProgress } {
  const content = init.content === undefined ? undefined : Buffer.from(init.content);
  const total = content?.length ?? init.totalBytes ?? Number.POSITIVE_INFINITY;
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const size = Math.min(chunkBytes, total - sent);
      let chunk: Buffer;
      if (content) {
        chunk = content.subarray(sent, sent + size);
      } else {
        // An unterminated JSON string: the handler must stop on size, not on a parse error.
        chunk = Buffer.alloc(size, "a".charCodeAt(0));
        if (sent === 0) chunk.write('{"certificateName":"');
      }
      sent += size;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  const url = new URL(init.path, BASE).href;
  const nativeRequest = new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: stream,
    duplex: "half",
  });
  // The library's own streaming path passes the native request this way (not in its typings).
  const streamInit: HttpRequestInit & { nativeRequest: Request } = { nativeRequest, params: {} };
  return {
    request: new HttpRequest(streamInit),
    progress: { pulled: () => sent, cancelled: () => cancelled },
  };
}

/** A fresh InvocationContext for `functionName`; each line it logs goes to `onLog`. */
export function invocationContext(
  functionName: string,
  onLog: (level: LogLevel, message: string) => void = () => {},
): InvocationContext {
  return new InvocationContext({
    invocationId: randomUUID(),
    functionName,
    logHandler: (level, ...args) => onLog(level, args.map(String).join(" ")),
  });
}

/** The timer argument the host passes; scheduleStatus is as the host fills it on a normal run. */
export function timer(isPastDue = false): Timer {
  const now = new Date().toISOString();
  return {
    isPastDue,
    schedule: { adjustForDST: false },
    scheduleStatus: { last: now, next: now, lastUpdated: now },
  };
}
