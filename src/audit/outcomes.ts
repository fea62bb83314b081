import type { AuthorizeOutcome } from './exchanges.js';
import { jsonObject } from './json-body.js';

/** A status and the start of a body, on one line, for a probe's detail. */
export function describeResponse(status: number, body: string): string {
  let code: unknown;
  try {
    code = jsonObject(body)?.error;
  } catch {
    // Nested too deep: described by its start, as a body that is not JSON.
  }
  if (typeof code === 'string') return `HTTP ${status} ${code}`;
  const line = body.replace(/\s+/g, ' ').trim();
  return `HTTP ${status}${line ? ` ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}...` : line)}` : ''}`;
}

/** The code an authorization request got, or undefined when it was refused. */
export function codeOf(outcome: AuthorizeOutcome): string | undefined {
  return outcome.kind === 'redirect' ? outcome.params.code : undefined;
}
