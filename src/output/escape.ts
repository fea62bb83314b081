/**
 * The Unicode bidirectional formatting characters (Unicode Standard Annex #9 section 2): the
 * embeddings and overrides U+202A..U+202E, the isolates U+2066..U+2069, the marks U+200E/U+200F and
 * the Arabic letter mark U+061C. Raw on a terminal they reorder what a person reads (a URL that shows
 * another host, "Trojan Source", CVE-2021-42574), so server text shows them escaped like the controls.
 */
export const BIDI_CONTROLS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const TERMINAL_UNSAFE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${BIDI_CONTROLS}]`, 'g');
const LOG_UNSAFE = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029${BIDI_CONTROLS}]`, 'g');

/** One character as an escape: `\xNN` up to U+00FF, `\uNNNN` above. */
function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
}

/**
 * Text that came from the network, made safe for a terminal: C0 control characters (tab and newline
 * aside), ESC, DEL and the C1 controls (U+0080..U+009F, which some terminals take as CSI and friends)
 * are shown as `\xNN` escapes, so a server cannot move the cursor, clear the screen, retitle the
 * window or write the clipboard (OSC 52); the bidirectional controls as `\uNNNN`, so it cannot
 * reorder the line either. A backslash stays as it is: the escapes are for reading.
 */
export function escapeTerminal(text: string): string {
  return text.replace(TERMINAL_UNSAFE, escapeChar);
}

/**
 * A result printed on stdout (an API body, a token), escaped only when stdout is a terminal: piped or
 * redirected, it stays byte for byte what the server sent, as curl does.
 */
export function escapeForStream(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY === true ? escapeTerminal(text) : text;
}

/**
 * A value for one line of a log: like escapeTerminal, and newlines, carriage returns, tabs and the
 * Unicode line and paragraph separators escaped too, so that a logged value (a client_id, a path)
 * can neither move the cursor nor begin a line of its own.
 */
export function escapeLogValue(text: string): string {
  return text.replace(LOG_UNSAFE, escapeChar);
}
