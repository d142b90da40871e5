import { escapeControl } from "../escapeControl.js";

/** The five characters that can end a text node or an attribute value, and their references. */
const REFERENCES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Text from elsewhere (a certificate name, an upstream's answer, a verification's detail) as it
 * may stand in HTML, in a text node or in a quoted attribute value: `&`, `<`, `>`, `"` and `'`
 * become character references, so no name can open a tag, close an attribute or start an entity.
 * Control characters, line separators and bidirectional overrides are first made visible
 * (shared/escapeControl.ts): an RTL override in a certificate name would otherwise reorder what
 * the reader sees next to it.
 */
export function escapeHtml(text: string): string {
  return escapeControl(text).replace(/[&<>"']/g, (ch) => REFERENCES[ch] ?? ch);
}
