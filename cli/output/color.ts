import type { Env } from "../../shared/core/settings.js";
import type { OutputStream } from "../io.js";

export type Paint = (text: string) => string;

/** ANSI colours, or identity functions when colour is off. */
export interface Palette {
  readonly enabled: boolean;
  readonly bold: Paint;
  readonly dim: Paint;
  readonly red: Paint;
  readonly green: Paint;
  readonly yellow: Paint;
  readonly cyan: Paint;
}

const sgr =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;

const plain: Paint = (text) => text;

/** FORCE_COLOR=1 (or any value but 0/false): colour in a pipe too, as `less -R` wants it. */
function forced(env: Env): boolean {
  const value = env.FORCE_COLOR;
  return value !== undefined && !["0", "false"].includes(value.trim().toLowerCase());
}

/**
 * Colour on a terminal, or anywhere with FORCE_COLOR; never when NO_COLOR is set to anything
 * (no-color.org), which wins.
 */
export function palette(stream: OutputStream, env: Env): Palette {
  const enabled = (stream.isTTY || forced(env)) && !env.NO_COLOR;
  if (!enabled) {
    return {
      enabled,
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
    };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}
