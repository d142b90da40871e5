import { escapeControl } from "./escapeControl.js";

/** The five characters that can end a text node or an attribute value, and their references. */
const REFERENCES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Format characters (Unicode Cf): invisible, yet they change what a reader sees. The bidi marks
 * (U+061C, U+200E, U+200F) reorder what stands next to them, as the overrides escapeControl
 * covers do; zero-width ones (U+200B, U+2060, U+FEFF...) make two different names look the same.
 */
const FORMAT = /\p{Cf}/gu;

/**
 * Text from elsewhere (a certificate name, an upstream's answer, a verification's detail) as it
 * may stand in HTML, in a text node or in a quoted attribute value: `&`, `<`, `>`, `"` and `'`
 * become character references, so no name can open a tag, close an attribute or start an entity.
 * Control characters, line separators and bidirectional overrides are first made visible
 * (shared/lib/text/escapeControl.ts): an RTL override in a certificate name would otherwise reorder what
 * the reader sees next to it. So are the other format characters, in the same `\u{XXXX}` form.
 */
export function escapeHtml(text: string): string {
  return escapeControl(text)
    .replace(FORMAT, (ch) => `\\u{${ch.codePointAt(0)?.toString(16).padStart(2, "0")}}`)
    .replace(/[&<>"']/g, (ch) => REFERENCES[ch] ?? ch);
}
