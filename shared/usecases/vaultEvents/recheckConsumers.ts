import type { Services } from "../../app/services.js";
import type { RecheckMessage } from "../../core/ports/vaultEvents.js";
import type { Logger } from "../../lib/log.js";

/** Placeholder: one later check of a vault certificate's consumers (being written). */
export async function recheckConsumers(
  _services: Services,
  _message: RecheckMessage,
  _log: Logger,
): Promise<void> {}
