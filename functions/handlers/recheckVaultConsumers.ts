import type { InvocationContext } from "@azure/functions";
import { getServices } from "../../shared/app/services.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { boundDetail } from "../../shared/lib/text/boundDetail.js";
import { escapeControl } from "../../shared/lib/text/escapeControl.js";
import {
  readRecheckMessage,
  recheckConsumers,
} from "../../shared/usecases/vaultEvents/recheckConsumers.js";

/**
 * The queue trigger on certsched-vault-rechecks: one later check of a vault version's consumers.
 * A message this version does not send is one line and dropped (never retried); a vault that
 * cannot be read, or a next recheck that cannot be sent, fails the invocation so the host
 * delivers it again.
 */
export async function recheckVaultConsumers(
  message: unknown,
  context: InvocationContext,
): Promise<void> {
  const log = contextLogger(context);
  const read = readRecheckMessage(message);
  if (typeof read === "string") {
    log.warn(`certsched vault recheck dropped: ${boundDetail(escapeControl(read))}`);
    return;
  }
  await recheckConsumers(getServices(), read, log);
}
