import { randomUUID } from "node:crypto";
import { InvocationContext } from "@azure/functions";
import type { Logger } from "../../../shared/lib/log.js";
import type { Simulator } from "../../../sim/index.js";

/** One thing a person or a caller could read: a log line, a response body, an error. */
export interface Seen {
  /** Where it came from: "log:<function>", "response", "error", "summary". */
  readonly where: string;
  readonly text: string;
}

/** A secret found in captured output; the secret itself is shown shortened, never whole. */
export interface Leak {
  readonly secret: string;
  readonly where: string;
  readonly excerpt: string;
}

/**
 * The leak collector every reliability suite shares: it keeps everything certsched let out
 * (log lines through InvocationContext, responses, errors and their causes, summaries), and
 * scans it for the configured secrets and for every token the identity provider issued.
 */
export class Capture {
  readonly seen: Seen[] = [];
  readonly #secrets = new Set<string>();
  readonly #sims = new Set<Simulator>();

  /** An InvocationContext whose every log call lands here (as the host's log stream would). */
  context(functionName = "reliability"): InvocationContext {
    return new InvocationContext({
      invocationId: randomUUID(),
      functionName,
      logHandler: (_level, ...args) => {
        this.add(`log:${functionName}`, args.map(String).join(" "));
      },
    });
  }

  /** A Logger for code that takes one (the sweep), landing here like the context's log. */
  logger(functionName = "sweep"): Logger {
    const line = (message: string) => this.add(`log:${functionName}`, message);
    return { info: line, warn: line, error: line };
  }

  add(where: string, text: string): void {
    this.seen.push({ where, text });
  }

  /** An error as a person could read it: message, stack, detail and every cause. */
  addError(error: unknown, where = "error"): void {
    for (const text of textsOf(error)) this.add(where, text);
  }

  /** Log lines captured so far, in order (optionally only those of one function). */
  lines(functionName?: string): string[] {
    return this.seen
      .filter((s) =>
        functionName === undefined ? s.where.startsWith("log:") : s.where === `log:${functionName}`,
      )
      .map((s) => s.text);
  }

  /** Values that must never appear: the simulator's API key, client secret and tokens. */
  watch(sim: Simulator): void {
    this.#sims.add(sim);
    this.watchValues(sim.options.apiKey, sim.options.clientSecret);
  }

  watchValues(...values: string[]): void {
    for (const value of values) this.#secrets.add(value);
  }

  /** Every watched value, tokens issued so far included. */
  secrets(): string[] {
    const all = new Set(this.#secrets);
    for (const sim of this.#sims) {
      all.add(sim.options.clientSecret);
      for (const token of sim.issuedTokens()) all.add(token);
    }
    return [...all];
  }

  leaks(): Leak[] {
    const found: Leak[] = [];
    const secrets = this.secrets();
    for (const { where, text } of this.seen) {
      for (const secret of secrets) {
        const at = text.indexOf(secret);
        if (at >= 0) {
          found.push({
            secret: `${secret.slice(0, 6)}…`,
            where,
            excerpt: text.slice(Math.max(0, at - 60), at).concat("<SECRET>"),
          });
        }
      }
    }
    return found;
  }
}

/** Everything a person could read from an error: message, stack, detail, problems, causes. */
export function textsOf(error: unknown, depth = 0): string[] {
  if (depth > 6 || typeof error !== "object" || error === null) return [String(error)];
  const e = error as Record<string, unknown>;
  const texts = [String(e.message), String(e.stack)];
  if (typeof e.detail === "string") texts.push(e.detail);
  for (const key of ["problems", "issues", "body"]) {
    if (e[key] !== undefined) texts.push(JSON.stringify(e[key]));
  }
  if (e.cause !== undefined) texts.push(...textsOf(e.cause, depth + 1));
  return texts;
}
