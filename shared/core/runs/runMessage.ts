import { z } from "zod";
import { parseOrThrow } from "../../lib/zodProblems.js";
import type { Run, RunMessage } from "./run.js";

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
// about a create request's "target" that meant nothing here). Only runId, dryRun, account and
// force are read.
const messageSchema = z.object({
  runId: runIdSchema,
  dryRun: z.boolean({ error: "must be true or false" }),
  account: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, { message: "must be an account name (1-40 of a-z, 0-9, -)" })
    .optional(),
  force: z.boolean({ error: "must be true or false" }).optional(),
});

/** A queue message holds at most 64 KiB; base64 makes that 4/3 longer. */
const MAX_MESSAGE_CHARS = Math.ceil((64 * 1024 * 4) / 3) + 4;
/** Standard base64 with its padding, as Storage Explorer and the SDKs' encoders write it. */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

/**
 * The message as the queue trigger hands it over, as a value to validate. The host parses JSON
 * text into an object (host.json messageEncoding "none"), so `value` is usually one; a string
 * is parsed here. Other tools (Storage Explorer, the SDKs' base64 encoders) write the same JSON
 * base64-encoded, which the host hands over as the text: that is decoded too, so such a message
 * runs instead of being poisoned. Anything else is returned as it came, for the schema to refuse.
 */
export function decodeRunMessage(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  const parsed = parseJson(text);
  if (isObject(parsed)) return parsed;
  if (text.length <= MAX_MESSAGE_CHARS && text.length % 4 === 0 && BASE64.test(text)) {
    const decoded = parseJson(Buffer.from(text, "base64").toString("utf8"));
    if (isObject(decoded)) return decoded;
  }
  return parsed ?? value;
}

/**
 * The run message, plain or base64 JSON (decodeRunMessage). Throws a ValidationError naming
 * each field: the host retries and then moves the message to the poison queue, where an
 * operator sees it.
 */
export function parseRunMessage(value: unknown): RunMessage {
  return parseOrThrow(messageSchema, decodeRunMessage(value), "run message");
}

/** The message text sent to the queue: JSON, ASCII only (host.json messageEncoding "none"). */
export function runMessageText(message: RunMessage): string {
  return JSON.stringify({
    runId: message.runId,
    dryRun: message.dryRun,
    ...(message.account === undefined ? {} : { account: message.account }),
    ...(message.force ? { force: true } : {}),
  });
}

/** The queue message of a run: its id, its dry-run flag, its account (a part's) and force. */
export function messageOf(run: Run): RunMessage {
  return {
    runId: run.runId,
    dryRun: run.dryRun,
    ...(run.account === undefined ? {} : { account: run.account }),
    ...(run.force ? { force: true } : {}),
  };
}
