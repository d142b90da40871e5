import type { OutputStream } from "../io.js";
import { cutToWidth, oneLine } from "./text.js";

/** A single self-overwriting status line on a terminal; silent anywhere else. */
export interface Progress {
  update(text: string): void;
  /** Erases the line, so what follows starts on a clean one. */
  clear(): void;
}

const ERASE_LINE = "\r\u001b[2K";

export function progressLine(stream: OutputStream): Progress {
  if (!stream.isTTY) return { update() {}, clear() {} };
  let shown = false;
  return {
    update(text) {
      // One line, never wrapped: a wrapped line cannot be erased with one \r.
      stream.write(`${ERASE_LINE}${cutToWidth(oneLine(text), (stream.columns ?? 80) - 1)}`);
      shown = true;
    },
    clear() {
      if (shown) stream.write(ERASE_LINE);
      shown = false;
    },
  };
}
