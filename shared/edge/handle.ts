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
  work: () => Promise<HttpResponseInit>,
): Promise<HttpResponseInit> {
  try {
    return await work();
  } catch (error) {
    const response = errorResponse(error, context.invocationId);
    const log = contextLogger(context);
    const message = ensureError(error).message;
    if ((response.status ?? 500) >= 500) log.error(`${context.functionName} failed: ${message}`);
    else log.warn(`${context.functionName} refused: ${message}`);
    return response;
  }
}
