import type { HttpResponseInit, InvocationContext } from "@azure/functions";
import { ensureError } from "../lib/errors.js";
import { contextLogger } from "./contextLogger.js";
import { errorResponse } from "./errorResponse.js";

/**
 * Runs a handler body and turns any failure into a problem response, logging the cause (never
 * a secret, never a stack in the response). The cause is logged through contextLogger, which
 * redacts it and escapes its control characters: messages quote callers and upstreams.
 */
export async function handle(
  context: InvocationContext,
  /**
   * The handler's body. `about(text)` sets what a failure's log line adds after the function's
   * name (the account, once the body knows it).
   */
  work: (about: (text: string) => void) => Promise<HttpResponseInit>,
): Promise<HttpResponseInit> {
  let note = "";
  try {
    return await work((text) => {
      note = text;
    });
  } catch (error) {
    const response = errorResponse(error, context.invocationId);
    const log = contextLogger(context);
    const message = ensureError(error).message;
    const what = `${context.functionName}${note}`;
    if ((response.status ?? 500) >= 500) log.error(`${what} failed: ${message}`);
    else log.warn(`${what} refused: ${message}`);
    return response;
  }
}
