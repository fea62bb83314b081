import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../../oauth/json.js';

/**
 * The text of a configuration file: JSON with comments and trailing commas (JSONC, as VS Code reads
 * its settings), read by Microsoft's jsonc-parser. Every syntax error is named at the user's own line
 * and column, and nothing is guessed: a missing value (`[ , ]`), an unclosed `/*` or string, a
 * missing comma is an error, never read as something else.
 */
export type ConfigTextResult = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** What each of jsonc-parser's error codes means, in words a user can act on. */
const PROBLEMS: Record<number, string> = {
  1: 'a character that cannot start a value or a name',
  2: 'a number is not valid',
  3: 'a property name (a string in double quotes) was expected',
  4: 'a value was expected',
  5: 'a colon was expected after the property name',
  6: 'a comma was expected',
  7: 'a closing brace } was expected',
  8: 'a closing bracket ] was expected',
  9: 'more text after the end of the configuration object',
  10: 'a comment is not valid here',
  11: 'a comment /* is not closed with */',
  12: 'a string is not closed',
  13: 'a number is not finished',
  14: 'a \\u escape in a string is not valid',
  15: 'an escape sequence in a string is not valid',
  16: 'a control character must be escaped inside a string',
};

/** Line and column (1-based) of an offset, as an editor counts them. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Parses `text` (the contents of `file`) as JSONC; a leading byte order mark is allowed. */
export async function parseConfigText(text: string, file: string): Promise<ConfigTextResult> {
  const source = text.replace(/^\uFEFF/, '');
  // jsonc-parser recurses once per level: the same bound as every other JSON this program reads.
  if (jsonNestsDeeperThan(source)) return { ok: false, errors: [`${file}: nested more than ${MAX_JSON_DEPTH} levels deep: refused`] };
  const { parse } = await import('jsonc-parser');
  const found: { error: number; offset: number; length: number }[] = [];
  const value: unknown = parse(source, found, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (found.length === 0) return { ok: true, value };
  // The first error only: the ones after it mostly follow from it.
  const [{ error, offset }] = found;
  const { line, column } = lineAndColumn(text, offset + text.length - source.length);
  return { ok: false, errors: [`${file}:${line}:${column}: not valid JSON: ${PROBLEMS[error] ?? `error ${error}`}`] };
}
