/**
 * Text from a record (a chat id, a message, an id, an error) is written by strangers. Printed as it
 * is, a control character drives the operator's terminal: `ESC]52;c;…` writes the clipboard,
 * `ESC[2J` clears the screen, `ESC]0;…` sets the window title, a carriage return overwrites what
 * was printed. `escapeControls` is the one place that makes such text inert: every CLI view
 * (render.ts, output.ts) and every dashboard cell and line (src/tui/views/format.ts) pass through it.
 * `--json` needs nothing more: JSON escapes control characters already.
 */

/**
 * C0 controls but the line feed (a view breaks lines itself), DEL, the C1 controls (0x9b is a CSI on
 * some terminals), and the Unicode controls that reorder or break what is shown (bidi overrides and
 * isolates, the line and paragraph separators).
 */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const SHORT: Readonly<Record<string, string>> = { '\t': '\\t', '\r': '\\r' }

/**
 * `text` with every control character shown as its escape, as JSON writes it: ESC becomes `\u001b`,
 * a carriage return `\r`, a tab `\t`. Line feeds are kept. Text without controls comes back as it
 * was, and escaping twice changes nothing more.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
