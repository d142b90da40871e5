import tls from "node:tls";
import type { EstateProblem } from "../../core/estate/estate.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * Every page of one Resource Graph query, by skip token, bounded: pages per query, rows per run,
 * bytes per answer and per row; Resource Graph's per-user quota headers and 429's Retry-After
 * honoured up to MAX_WAIT_MS. Never throws: what could not be read is a problem, what was read
 * before it stands.
 *
 * It uses fetch (undici) rather than the project's HttpClient: the quota headers
 * (x-ms-user-quota-remaining / -resets-after) are not among what HttpClient's answer carries.
 */

export const GRAPH_API_VERSION = "2022-10-01";
export const MAX_PAGES = 100;
export const MAX_ROWS_PER_RUN = 50_000;
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
export const MAX_ROW_BYTES = 1024 * 1024;
/** Longest wait honoured for a quota reset or a Retry-After. */
export const MAX_WAIT_MS = 60_000;

export interface GraphPagesOptions {
  /** e.g. https://management.azure.com */
  readonly armUrl: string;
  /** The account's management token, asked for on each page (the credential caches it). */
  readonly token: () => Promise<string>;
  /** Each request, whole answer read. */
  readonly timeoutMs: number;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
  /** Wall clock, ms: for a Retry-After given as an HTTP date. */
  readonly now?: (() => number) | undefined;
  readonly maxPages?: number | undefined;
  readonly maxAnswerBytes?: number | undefined;
  /**
   * A certificate (PEM) to trust for armUrl besides Node's store: the sandbox's local Resource
   * Manager, in a process that did not start with NODE_EXTRA_CA_CERTS naming it.
   */
  readonly ca?: string | undefined;
}

/** Rows left in this run, shared by every query of it. */
export interface RowBudget {
  left: number;
}

export interface QueryRows {
  readonly rows: readonly unknown[];
  readonly problems: readonly EstateProblem[];
  readonly truncated: number;
}

const WHERE = "Resource Graph";

/** Every page of `query` (named `label` in problems), within `budget`. */
export async function queryAllPages(
  label: string,
  query: string,
  budget: RowBudget,
  options: GraphPagesOptions,
  signal?: AbortSignal,
): Promise<QueryRows> {
  const rows: unknown[] = [];
  const problems: EstateProblem[] = [];
  let truncated = 0;
  const seen = new Set<string>();
  let skipToken: string | undefined;
  for (let page = 1; ; page++) {
    if (page > (options.maxPages ?? MAX_PAGES)) {
      problems.push(problem(`${label}: stopped after ${page - 1} pages (the most read per query)`));
      break;
    }
    const answer = await askPage(query, skipToken, options, signal);
    if ("problem" in answer) {
      problems.push({ ...answer.problem, detail: `${label}: ${answer.problem.detail}` });
      break;
    }
    for (const row of answer.rows) {
      if (budget.left <= 0 || JSON.stringify(row).length > MAX_ROW_BYTES) truncated++;
      else {
        rows.push(row);
        budget.left--;
      }
    }
    truncated += answer.oversized;
    skipToken = answer.skipToken;
    if (skipToken === undefined) break;
    if (seen.has(skipToken)) {
      problems.push(problem(`${label}: the skip token repeated on page ${page}: stopped there`));
      break;
    }
    seen.add(skipToken);
  }
  return { rows, problems, truncated };
}

function problem(detail: string, status?: number): EstateProblem {
  return { where: WHERE, detail: boundDetail(redact(detail)), ...(status ? { status } : {}) };
}

type PageAnswer =
  | { rows: readonly unknown[]; skipToken: string | undefined; oversized: number }
  | { problem: EstateProblem };

/** One page, waiting out a spent quota or a 429 (once each, at most MAX_WAIT_MS). */
async function askPage(
  query: string,
  skipToken: string | undefined,
  options: GraphPagesOptions,
  signal: AbortSignal | undefined,
): Promise<PageAnswer> {
  for (let attempt = 1; ; attempt++) {
    const sent = await send(query, skipToken, options, signal);
    if ("problem" in sent) return sent;
    const wait = waitOf(sent.response, options.now ?? Date.now);
    if (sent.response.status === 429) {
      if (wait === undefined || wait > MAX_WAIT_MS || attempt > 3) {
        return { problem: problem(throttled(wait, "429 Too Many Requests"), 429) };
      }
      await (options.sleep ?? delay)(wait);
      continue;
    }
    const answer = await pageOf(sent.response, options);
    if ("problem" in answer) return answer;
    const quota = quotaWait(sent.response);
    if (quota !== undefined) {
      if (quota > MAX_WAIT_MS) {
        return { problem: problem(throttled(quota, "the user quota is spent")) };
      }
      await (options.sleep ?? delay)(quota);
    }
    return answer;
  }
}

function throttled(wait: number | undefined, what: string): string {
  const after = wait === undefined ? "no time to retry given" : `retry after ${wait / 1000} s`;
  return `throttled (${what}, ${after}): stopped; waits longer than ${MAX_WAIT_MS / 1000} s are not honoured`;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** 429's Retry-After: seconds or an HTTP date; undefined when missing or not either. */
export function waitOf(response: Response, now: () => number): number | undefined {
  const value = response.headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/** When the quota is spent (remaining 0), the wait until it resets (hh:mm:ss), in ms. */
export function quotaWait(response: Response): number | undefined {
  const remaining = response.headers.get("x-ms-user-quota-remaining")?.trim();
  if (remaining === undefined || remaining === null || Number(remaining) > 0) return undefined;
  const resets = response.headers.get("x-ms-user-quota-resets-after")?.trim() ?? "";
  const parts = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(resets);
  if (!parts) return MAX_WAIT_MS + 1;
  const [, h, m, s] = parts.map(Number) as [number, number, number, number];
  return ((h * 60 + m) * 60 + s) * 1000;
}

async function send(
  query: string,
  skipToken: string | undefined,
  options: GraphPagesOptions,
  signal: AbortSignal | undefined,
): Promise<{ response: Response } | { problem: EstateProblem }> {
  const url = `${options.armUrl.replace(/\/+$/, "")}/providers/Microsoft.ResourceGraph/resources?api-version=${GRAPH_API_VERSION}`;
  const body = JSON.stringify({
    query,
    options: {
      $top: 1000,
      ...(skipToken ? { $skipToken: skipToken } : {}),
      resultFormat: "objectArray",
    },
  });
  try {
    const token = await options.token();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const init: RequestInit = {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: "manual",
    };
    return {
      response: await (options.ca
        ? fetchTrusting(options.ca, options.maxAnswerBytes ?? MAX_ANSWER_BYTES)
        : fetch)(url, init),
    };
  } catch (error) {
    return { problem: problem(`could not be asked: ${messageOf(error)}`) };
  }
}

/**
 * fetch with undici's own Agent trusting `ca` (and Node's store). The body is read here, to at
 * most `limit` bytes and one more (so a longer one is still seen as longer), as the agent
 * closes with this call.
 */
function fetchTrusting(ca: string, limit: number): typeof fetch {
  return async (url, init) => {
    const undici = await import("undici");
    const dispatcher = new undici.Agent({ connect: { ca: [...tls.rootCertificates, ca] } });
    try {
      const response = await undici.fetch(String(url), { ...(init as object), dispatcher });
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of response.body ?? []) {
        chunks.push(chunk);
        size += chunk.byteLength;
        if (size > limit) break;
      }
      const headers = new Headers([...response.headers]);
      return new Response(Buffer.concat(chunks), { status: response.status, headers });
    } finally {
      await dispatcher.destroy();
    }
  };
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  return error instanceof Error ? error.message : String(error);
}

/** A 200's rows and skip token, the body read to at most maxAnswerBytes. */
async function pageOf(response: Response, options: GraphPagesOptions): Promise<PageAnswer> {
  const text = await boundedText(response, options.maxAnswerBytes ?? MAX_ANSWER_BYTES);
  if (text === undefined) {
    return {
      problem: problem("an answer larger than the most read, or cut short", response.status),
    };
  }
  if (response.status !== 200) return { problem: statusProblem(response.status, text) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: problem("an answer that is not JSON", 200) };
  }
  const page = parsed as { data?: unknown; $skipToken?: unknown };
  if (typeof page !== "object" || page === null || !Array.isArray(page.data)) {
    return { problem: problem("an answer without a data array", 200) };
  }
  const skipToken =
    typeof page.$skipToken === "string" && page.$skipToken !== "" ? page.$skipToken : undefined;
  return { rows: page.data, skipToken, oversized: 0 };
}

function statusProblem(status: number, text: string): EstateProblem {
  let code = "";
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
    code = [error?.code, error?.message].filter((x) => typeof x === "string").join(": ");
  } catch {
    // Not JSON: the status says enough.
  }
  const said = code ? ` (${boundDetail(code, 200)})` : "";
  if (status === 401 || status === 403) {
    return problem(
      `refused (${status})${said}: the identity may not read the subscriptions in scope; grant Reader on them`,
      status,
    );
  }
  return problem(`answered ${status}${said}`, status);
}

/** The body as text, or undefined when longer than `max` bytes or cut short. */
async function boundedText(response: Response, max: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > max) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString("utf8");
}
