import { redact } from "../redact/redact.js";

/** Upstream detail kept in errors and logs; beyond this it is noise, not diagnosis. */
const MAX_DETAIL = 300;

/**
 * The upstream's plain-text explanation, made fit for a log line: an HTML page (a gateway's
 * error page) is reduced to its title, whitespace is collapsed, secrets are redacted, and the
 * result is shortened.
 */
export function responseDetail(text: string, contentType: string | undefined): string | undefined {
  const looksHtml = /html/i.test(contentType ?? "") || /^\s*<(!doctype|html)/i.test(text);
  let detail = text;
  if (looksHtml) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
    detail = title ? `HTML page "${title.trim()}"` : "HTML page without a title";
  }
  detail = redact(detail.replace(/\s+/g, " ").trim());
  if (detail === "") return undefined;
  return detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail;
}
