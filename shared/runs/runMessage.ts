import { z } from "zod";
import { parseOrThrow } from "../schemas/problems.js";
import type { RunMessage } from "./run.js";

/** A run id as certsched makes them (crypto.randomUUID): lower- or upper-case hex UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The rule a runId must meet, wherever it comes from (a route, a message, a row). */
export const runIdSchema = z
  .string({ error: "is required" })
  .regex(UUID, { message: "must be a run id: a UUID, as in the Location header" })
  // Row keys compare exactly; certsched writes lower case.
  .transform((id) => id.toLowerCase());

// Fields it does not know are dropped, not refused: during a slot swap the other version's
// messages must still run (refused, they were poisoned after five deliveries, with a message
// about a create request's "target" that meant nothing here). Only runId and dryRun are read.
const messageSchema = z.object({
  runId: runIdSchema,
  dryRun: z.boolean({ error: "must be true or false" }),
});

/**
 * The message as the queue trigger hands it over: the host parses JSON text into an object, so
 * `value` is usually one; a string is parsed here. Throws a ValidationError naming each field:
 * the host retries and then moves the message to the poison queue, where an operator sees it.
 */
export function parseRunMessage(value: unknown): RunMessage {
  let input = value;
  if (typeof value === "string") {
    try {
      input = JSON.parse(value);
    } catch {
      input = value;
    }
  }
  return parseOrThrow(messageSchema, input, "run message");
}

/** The message text sent to the queue: JSON, ASCII only (host.json messageEncoding "none"). */
export function runMessageText(message: RunMessage): string {
  return JSON.stringify({ runId: message.runId, dryRun: message.dryRun });
}
