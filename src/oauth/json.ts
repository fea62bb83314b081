/**
 * JSON from a server, read with a bound on its nesting. JSON.parse itself copes with any depth, but
 * everything after it that walks the value (narration, redaction, printing) recurses, and a body
 * nested two million deep then ends in "Maximum call stack size exceeded". No document of OAuth nests
 * more than a handful of levels: deeper than this is refused up front, in one line.
 */
export const MAX_JSON_DEPTH = 100;

/** A JSON object: not null, not an array (what a configuration, a document or a request body must be). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class JsonDepthError extends Error {
  override name = 'JsonDepthError';
}

/** Whether the text's arrays and objects nest deeper than `max` (strings skipped, escapes honoured). */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse, after the depth check: throws JsonDepthError (naming `what`) for a body nested too deep, SyntaxError as JSON.parse does. */
export function parseJson(text: string, what = 'the JSON body'): unknown {
  if (jsonNestsDeeperThan(text)) throw new JsonDepthError(`${what} is nested more than ${MAX_JSON_DEPTH} levels deep: refused (no OAuth document nests so deep)`);
  return JSON.parse(text);
}
