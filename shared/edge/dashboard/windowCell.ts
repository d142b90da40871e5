import { type WindowView, windowWords } from "../../core/status/windowView.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";

/**
 * What the renewal calendar says of a row, under its status: "waiting for window (opens ...)",
 * "disabled (policy ...)", "renewed outside its renewal windows: ...", "window open until ...". The
 * labels, reasons and times come from the declaration: escaped like every other text.
 */
export function windowHtml(window: WindowView | null | undefined): string {
  if (window === null || window === undefined) return "";
  return `<span class="sub window window-${window.state}">${h(windowWords(window))}</span>`;
}
