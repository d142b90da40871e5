import type { RecheckMessage, RecheckQueue } from "../../core/ports/vaultEvents.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import { MAX_DELAY_SECONDS } from "./storageRecheckQueue.js";

/** The longest delay, as the Storage Queue's (setTimeout's own limit is about 24.8 days). */
const MAX_DELAY_MS = MAX_DELAY_SECONDS * 1000;

/** The recheck queue in process, with what it still holds. */
export interface InlineRecheckQueue extends RecheckQueue {
  readonly kind: "inline";
  /** Messages waiting for their time or being delivered. */
  readonly pending: number;
  /** Resolves once every message sent has been delivered (tests: send with short delays). */
  settled(): Promise<void>;
  /** Drops the messages still waiting: they are not delivered (the services are closing). */
  close(): void;
}

/**
 * No storage queue configured (tests, the sandbox): each message is a timer in this process,
 * handed to `deliver` after its delay (at most 7 days, as the Storage Queue's). The timer does
 * not keep the process alive, and nothing survives a restart. A delivery that throws is logged,
 * never delivered again: the storage queue's retries are the host's, and this is no host.
 */
export function inlineRecheckQueue(
  deliver: (message: RecheckMessage, log: Logger) => Promise<void>,
): InlineRecheckQueue {
  /** Each message waiting for its time: its timer, and what resolves when it is over. */
  const waiting = new Map<NodeJS.Timeout, { readonly over: Promise<void>; end(): void }>();
  const running = new Set<Promise<void>>();
  const deliverNow = (message: RecheckMessage, log: Logger) => {
    const delivery = deliver(message, log)
      .catch((error: unknown) => {
        const why = boundDetail(redact(ensureError(error).message));
        const what = `${boundDetail(message.vaultName, 100)}/${boundDetail(message.certificateName, 200)}`;
        log.error(`certsched vault recheck ${what} attempt ${message.attempt}: ${why}`);
      })
      .finally(() => running.delete(delivery));
    running.add(delivery);
  };
  return {
    kind: "inline",
    get pending() {
      return waiting.size + running.size;
    },
    async send(message, delayMs, log) {
      const ms = Number.isNaN(delayMs) ? 0 : Math.min(Math.max(0, delayMs), MAX_DELAY_MS);
      let end = () => {};
      const over = new Promise<void>((resolve) => {
        end = resolve;
      });
      const timer = setTimeout(() => {
        waiting.delete(timer);
        deliverNow(message, log);
        end();
      }, ms);
      timer.unref();
      waiting.set(timer, { over, end });
    },
    async settled() {
      while (waiting.size > 0 || running.size > 0) {
        await Promise.all([...[...waiting.values()].map((w) => w.over), ...running]);
      }
    },
    close() {
      for (const [timer, { end }] of waiting) {
        clearTimeout(timer);
        end();
      }
      waiting.clear();
    },
  };
}
