import type { AriView } from "../../core/ari/ariView.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";

/**
 * The CA's renewal window under a row's expiry (ARI): its dates, "(renew now)" once it has
 * started, and the CA's explanation as a link. Upstream text: escaped, and only an http(s) URL
 * (ariView.ts) ever becomes a link.
 */
export function ariHtml(ari: AriView | null): string {
  if (ari === null) return "";
  const link = ari.explanationUrl
    ? ` <a href="${h(ari.explanationUrl)}" rel="noopener noreferrer nofollow" target="_blank">why</a>`
    : "";
  return `<span class="sub ari">${h(ari.text)}${link}</span>`;
}
