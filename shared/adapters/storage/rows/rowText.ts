import { z } from "zod";

/** Texts every stored row uses, read back as input like any other (validated). */

/** An ISO-8601 UTC date-time, read as a Date. */
export const instant = z.iso
  .datetime({ message: "must be an ISO-8601 UTC date-time" })
  .transform((text) => new Date(text));

/** A property stored as JSON text, read back as `schema`'s output. */
export const jsonText = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, ctx) => {
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data as z.output<T>;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: "custom", message: "must be JSON of the documented shape" });
    return z.NEVER;
  });
