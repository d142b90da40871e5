import { z } from "zod";

/**
 * A whole-number setting in [min, max]; `unit` names what it counts in the message ("days"). One
 * rule, one message, for every such setting.
 */
export function wholeNumber(min: number, max: number, unit = "") {
  return z.string().transform((value, ctx) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be a whole number${unit ? ` of ${unit}` : ""} from ${min} to ${max}`,
      });
      return z.NEVER;
    }
    return n;
  });
}
