import { setTimeout as sleep } from "node:timers/promises";
import type { Runtime } from "../../shared/app/services.js";
import { isCertschedError, UsageError } from "../../shared/lib/errors.js";
import { parseDuration } from "../../shared/lib/time.js";
import { type Command, JSON_OPTION } from "../command.js";
import { EXIT } from "../failure.js";
import type { Io } from "../io.js";
import { cutToWidth, oneLine, visibleWidth, wrapToWidth } from "../output/text.js";
import { withRuntime } from "../runtime.js";

const HELP = `Usage: certsched test [--wait [TIMEOUT]] [--json]

Checks that certsched can reach the service with its configured credentials:
obtains the cloud access tokens and calls the service's connectivity test.

Options:
  --wait [TIMEOUT]  Keep trying until the service answers, for up to TIMEOUT
                    (default 2m; e.g. 30s, 5m, 90): useful right after a
                    deployment. Only "no answer" is retried (unreachable, timed
                    out, 429, 5xx); a refusal ends the wait at once.
  --json            Print one JSON document: { "status": "ok", "service",
                    "message" } (with --wait, also "attempts").
  -h, --help        Show this help.

Exit codes: 0 connected; 1 the identity provider or the service refused or
failed (with --wait: never answered within TIMEOUT); 2 usage or configuration
error.
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
  runtime: Runtime,
  io: Io,
  timeoutMs: number,
): Promise<{ message: string; attempts: number }> {
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
            `certsched: no answer after ${attempts} attempt(s) in ${Math.round(timeoutMs / 1000)}s; giving up.\n`,
          );
        }
        throw error;
      }
      const wait = Math.min(pause, left);
      // One line per attempt, fitted to the terminal: the final error is printed in full anyway.
      const after = `; trying again in ${Math.ceil(wait / 1000)}s`;
      const room =
        (io.stderr.columns ?? Number.POSITIVE_INFINITY) -
        visibleWidth(`certsched: no answer yet ()${after}`);
      io.stderr.write(
        `certsched: no answer yet (${cutToWidth(oneLine(error.message), room)})${after}\n`,
      );
      await sleep(wait);
      pause = Math.min(pause * 2, PAUSE.maxMs);
    }
  }
}

export const testCommand: Command = {
  name: "test",
  help: HELP,
  options: { ...JSON_OPTION, wait: { type: "boolean" } },
  maxPositionals: 1,
  run: async (args, io) => {
    const wait = args.values.wait === true;
    const timeoutText = args.positionals[0];
    if (timeoutText !== undefined && !wait) {
      throw new UsageError(
        `unexpected argument "${timeoutText}" (a timeout goes after --wait)`,
        "test",
      );
    }
    const timeoutMs = wait ? waitTimeout(timeoutText) : undefined;
    return withRuntime(io, ["subscriptionId"], async (runtime) => {
      const { message, attempts } =
        timeoutMs === undefined
          ? { message: await runtime.client.test(), attempts: 1 }
          : await testUntilAnswered(runtime, io, timeoutMs);
      const service = runtime.settings.baseUrl;
      if (args.values.json === true) {
        const document = { status: "ok", service, message, ...(wait ? { attempts } : {}) };
        io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
      } else {
        const line = `Connected to ${service}: ${oneLine(message.trim()) || "OK"}`;
        io.stdout.write(`${wrapToWidth(line, io.stdout.columns, "", "  ").join("\n")}\n`);
      }
      return EXIT.ok;
    });
  },
};
