import { isJsonObject, JsonDepthError, parseJson } from '../oauth/json.js';
import { ProbeFailure } from './probe-errors.js';

/**
 * The JSON value of a server's response body, or undefined when it is not JSON. Read with the
 * client's bounded parser: a body nested deeper than any OAuth document fails the probe with one line
 * saying so (a ProbeFailure), where walking it later could overflow the stack.
 */
export function jsonValue(body: string, what = 'the response body'): unknown {
  try {
    return parseJson(body, what);
  } catch (err) {
    if (err instanceof JsonDepthError) throw new ProbeFailure(err.message);
    return undefined;
  }
}

/** The JSON object of a response body (not an array, not null), or undefined; bounded as jsonValue. */
export function jsonObject(body: string, what?: string): Record<string, unknown> | undefined {
  const value = jsonValue(body, what);
  return isJsonObject(value) ? value : undefined;
}
