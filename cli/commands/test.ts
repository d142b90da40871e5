import { setTimeout as sleep } from "node:timers/promises";
import type { AccountPorts } from "../../shared/app/services.js";
import { noLedger } from "../../shared/core/ports/ledger.js";
import { isCertschedError, UsageError } from "../../shared/lib/errors.js";
import { parseDuration } from "../../shared/lib/time.js";
import { type CliServices, withServices } from "../accountPorts.js";
import type { AccountOutcome } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT, reportAccountFailure } from "../failure.js";
import type { Io } from "../io.js";
import { cutToWidth, oneLine, visibleWidth, wrapToWidth } from "../output/text.js";

const HELP = `Usage: certsched test [--wait [TIMEOUT]] [--account NAME] [--json]

Checks that certsched can reach the service with its configured credentials:
obtains the cloud access tokens and calls the service's connectivity test.
Every account's, one line each when there are several, or --account NAME's.

Options:
  --wait [TIMEOUT]  Keep trying until the service answers, for up to TIMEOUT
                    (default 2m; e.g. 30s, 5m, 90): useful right after a
                    deployment. Only "no answer" is retried (unreachable, timed
                    out, 429, 5xx); a refusal ends the wait at once.
  --json            Print one JSON document: { "account", "status": "ok",
                    "service", "message" } (with --wait, also "attempts");
                    with several accounts { "results": [ those, or with
                    "status": "failed" and "error" ], "accounts": [ {
                    "name", "failed", "problems" } ] }.
  -h, --help        Show this help.

Exit codes: 0 connected (every account); 1 the identity provider or the
service refused or failed (any account's; with --wait: never answered within
TIMEOUT); 2 usage or configuration error.
`;

/** --wait's defaults and bounds, in ms. */
const WAIT = { defaultMs: 120_000, minMs: 1_000, maxMs: 3_600_000 } as const;
/** Pause between attempts, in ms: doubled from the first up to the last. */
const PAUSE = { firstMs: 1_000, maxMs: 10_000 } as const;

/** The TIMEOUT after --wait: a duration (30s, 5m, PT2M) or whole seconds. */
function waitTimeout(text: string | undefined): number {
  if (text === undefined) return WAIT.defaultMs;
  const ms = /^\d+$/.test(text.trim()) ? Number(text) * 1000 : parseDuration(text);
  if (ms === undefined || ms < WAIT.minMs || ms > WAIT.maxMs) {
    throw new UsageError("--wait takes a timeout from 1s to 1h (e.g. 30s, 5m, 90)", "test");
  }
  return ms;
}

/** Calls the connectivity test until it answers or `timeoutMs` passes; the last error if not. */
async function testUntilAnswered(
  runtime: AccountPorts,
  io: Io,
  timeoutMs: number,
  account?: string,
): Promise<{ message: string; attempts: number }> {
  const who = account === undefined ? "" : `account ${account}: `;
  const deadline = runtime.now().getTime() + timeoutMs;
  let pause: number = PAUSE.firstMs;
  for (let attempts = 1; ; attempts++) {
    try {
      return { message: await runtime.client.test(), attempts };
    } catch (error) {
      // Retriable means "no answer yet" (unreachable, timed out, 429, 5xx); anything else is
      // the service's answer, and waiting longer would not change it.
      const left = deadline - runtime.now().getTime();
      if (!isCertschedError(error) || !error.retriable || left <= 0) {
        if (isCertschedError(error) && error.retriable) {
          io.stderr.write(
            `certsched: ${who}no answer after ${attempts} attempt(s) in ${Math.round(timeoutMs / 1000)}s; giving up.\n`,
          );
        }
        throw error;
      }
      const wait = Math.min(pause, left);
      // One line per attempt, fitted to the terminal: the final error is printed in full anyway.
      const after = `; trying again in ${Math.ceil(wait / 1000)}s`;
      const room =
        (io.stderr.columns ?? Number.POSITIVE_INFINITY) -
        visibleWidth(`certsched: ${who}no answer yet ()${after}`);
      io.stderr.write(
        `certsched: ${who}no answer yet (${cutToWidth(oneLine(error.message), room)})${after}\n`,
      );
      await sleep(wait);
      pause = Math.min(pause * 2, PAUSE.maxMs);
    }
  }
}

/** --wait's timeout in ms, or undefined without --wait; a timeout without --wait is a usage error. */
function waitOption(wait: boolean, timeoutText: string | undefined): number | undefined {
  if (timeoutText !== undefined && !wait) {
    throw new UsageError(
      `unexpected argument "${timeoutText}" (a timeout goes after --wait)`,
      "test",
    );
  }
  return wait ? waitTimeout(timeoutText) : undefined;
}

/** The service's answer to one account's connectivity test, and how many attempts it took. */
interface Connected {
  readonly message: string;
  readonly attempts: number;
  readonly service: string;
}

/** One account's connectivity test: once, or until it answers within `timeoutMs` (--wait). */
async function connect(
  runtime: AccountPorts,
  io: Io,
  timeoutMs: number | undefined,
  account: string | undefined,
): Promise<Connected> {
  const answer =
    timeoutMs === undefined
      ? { message: await runtime.client.test(), attempts: 1 }
      : await testUntilAnswered(runtime, io, timeoutMs, account);
  return { ...answer, service: runtime.settings.baseUrl };
}

/** One account connected: the JSON document, or one line for people. */
function writeConnected(
  io: Io,
  account: string,
  { message, attempts, service }: Connected,
  json: boolean,
  wait: boolean,
): void {
  if (json) {
    const document = {
      account,
      status: "ok",
      service,
      message,
      ...(wait ? { attempts } : {}),
    };
    io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  } else {
    const line = `Connected to ${service}: ${oneLine(message.trim()) || "OK"}`;
    io.stdout.write(`${wrapToWidth(line, io.stdout.columns, "", "  ").join("\n")}\n`);
  }
}

/** One account's result among several: connected, or failed with the error's code. */
type AccountResult =
  | { account: string; status: "ok"; service: string; message: string; attempts?: number }
  | { account: string; status: "failed"; service: string; error: string; message: string };

/** Each account's result, in declaration order; each failure reported on stderr as it comes. */
function accountResults(
  outcomes: readonly AccountOutcome<Connected>[],
  cli: CliServices,
  io: Io,
  wait: boolean,
): AccountResult[] {
  return outcomes.map((o) => {
    const service = cli.services.forAccount(o.account).settings.baseUrl;
    if (o.ok) {
      const { message, attempts } = o.value;
      return {
        account: o.account,
        status: "ok",
        service,
        message,
        ...(wait ? { attempts } : {}),
      };
    }
    const failure = reportAccountFailure(o.error, io, o.account, "test");
    return {
      account: o.account,
      status: "failed",
      service,
      error: failure.code,
      message: failure.message,
    };
  });
}

/** Several accounts' results: the JSON document with its "accounts", or one line each. */
function writeResults(io: Io, results: readonly AccountResult[], json: boolean): void {
  if (json) {
    const accounts = results.map((r) => ({
      name: r.account,
      failed: r.status !== "ok",
      problems: r.status === "ok" ? [] : [r.message],
    }));
    io.stdout.write(`${JSON.stringify({ results, accounts }, null, 2)}\n`);
  } else {
    const lines = results.flatMap((r) =>
      wrapToWidth(
        r.status === "ok"
          ? `${r.account}: connected to ${r.service}: ${oneLine(r.message.trim()) || "OK"}`
          : `${r.account}: failed (${r.service}): ${oneLine(r.message)}`,
        io.stdout.columns,
        "",
        "  ",
      ),
    );
    io.stdout.write(`${lines.join("\n")}\n`);
  }
}

export const testCommand: Command = {
  name: "test",
  help: HELP,
  options: { ...JSON_OPTION, wait: { type: "boolean" } },
  maxPositionals: 1,
  run: async (args, io) => {
    const wait = args.values.wait === true;
    const timeoutMs = waitOption(wait, args.positionals[0]);
    const json = args.values.json === true;
    return withServices(
      io,
      ["subscriptionId"],
      { ledger: noLedger },
      { args, command: "test", scope: "each" },
      async (cli) => {
        const outcomes = await cli.each((runtime) =>
          connect(runtime, io, timeoutMs, cli.many ? runtime.settings.account : undefined),
        );
        // One account: its failure is reported as every command's (exit 1, cause, where to look).
        const only = outcomes[0];
        if (!cli.many && only) {
          if (!only.ok) throw only.error;
          writeConnected(io, only.account, only.value, json, wait);
          return EXIT.ok;
        }
        const results = accountResults(outcomes, cli, io, wait);
        writeResults(io, results, json);
        return results.every((r) => r.status === "ok") ? EXIT.ok : EXIT.failed;
      },
    );
  },
};
