import type { HttpResponseInit, InvocationContext } from "@azure/functions";
import { ensureError } from "../errors.js";
import { redact } from "../redact.js";
import { errorResponse } from "./errorResponse.js";

/**
 * Runs a handler body and turns any failure into a problem response, logging the cause (never
 * a secret, never a stack in the response).
 */
export async function handle(
  context: InvocationContext,
  work: () => Promise<HttpResponseInit>,
): Promise<HttpResponseInit> {
  try {
    return await work();
  } catch (error) {
    const response = errorResponse(error, context.invocationId);
    const message = redact(ensureError(error).message);
    if ((response.status ?? 500) >= 500)
      context.error(`${context.functionName} failed: ${message}`);
    else context.warn(`${context.functionName} refused: ${message}`);
    return response;
  }
}
