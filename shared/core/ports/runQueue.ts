import type { Logger } from "../../lib/log.js";
import type { RunMessage } from "../runs/run.js";

export interface RunQueue {
  readonly kind: "storage" | "inline";
  /** Queues the run; throws RUNS_UNAVAILABLE when the message could not be sent. */
  send(message: RunMessage, log: Logger): Promise<void>;
  /**
   * Whether a message naming `runId` waits in the queue (visible, not yet delivered): true, it
   * does; false, every waiting message was seen and none names it; undefined, that cannot be
   * told (more waiting than one look shows, or the queue not readable). Unset: false.
   */
  holds?(runId: string): Promise<boolean | undefined>;
}
