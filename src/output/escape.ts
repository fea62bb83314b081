/**
 * Text that came from the network, made safe for a terminal: C0 control characters (tab and newline
 * aside), ESC, DEL and the C1 controls (U+0080..U+009F, which some terminals take as CSI and friends)
 * are shown as `\xNN` escapes, so a server cannot move the cursor, clear the screen, retitle the
 * window or write the clipboard (OSC 52). A backslash stays as it is: the escapes are for reading.
 */
export function escapeTerminal(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
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
  return text.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
