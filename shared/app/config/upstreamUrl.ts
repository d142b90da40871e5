import { z } from "zod";
import { isSecureOrLoopback } from "../../lib/url.js";

/** https anywhere; plain http only on loopback, so the simulator works and nothing else leaks. */
export function upstreamUrl(options: { allowQuery?: boolean } = {}) {
  return z.string().transform((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute URL" });
      return z.NEVER;
    }
    if (!isSecureOrLoopback(url)) {
      ctx.addIssue({
        code: "custom",
        message: "must use https (plain http is accepted only for loopback hosts)",
      });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: "custom", message: "must not carry credentials" });
      return z.NEVER;
    }
    if ((url.search && !options.allowQuery) || url.hash) {
      ctx.addIssue({
        code: "custom",
        message: options.allowQuery
          ? "must not have a fragment"
          : "must not have a query or fragment",
      });
      return z.NEVER;
    }
    return url.href.replace(/\/+$/, "");
  });
}
