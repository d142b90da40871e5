/**
 * Control characters made visible, so text from elsewhere (an upstream's error body, a route
 * name, a certificate name) can never forge a log line or drive an operator's terminal: a
 * newline could start a fake `certsched sweep summary` line, and ESC / CSI / OSC sequences set
 * window titles, clear screens or plant hyperlinks.
 *
 * Every C0 control (U+0000–U+001F), DEL (U+007F), C1 control (U+0080–U+009F), and the Unicode
 * line/paragraph separators, bidirectional overrides and marks (which reorder what a reader
 * sees: U+200E, U+200F, U+061C) are written as `\u{XX}` escapes; a backslash itself stays as it
 * is. Newlines are kept when `keepNewlines`.
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function escapeControl(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(CONTROL, (ch) => {
    if (options.keepNewlines && ch === "\n") return ch;
    return `\\u{${ch.codePointAt(0)?.toString(16).padStart(2, "0")}}`;
  });
}
