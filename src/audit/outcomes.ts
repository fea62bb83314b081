import type { AuthorizeOutcome } from './exchanges.js';

/** A status and the start of a body, on one line, for a probe's detail. */
export function describeResponse(status: number, body: string): string {
  let error = '';
  try {
    const json = JSON.parse(body) as { error?: unknown };
    if (typeof json.error === 'string') error = ` ${json.error}`;
  } catch {
    // not JSON
  }
  if (error) return `HTTP ${status}${error}`;
  const line = body.replace(/\s+/g, ' ').trim();
  return `HTTP ${status}${line ? ` ${JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}...` : line)}` : ''}`;
}

/** The code an authorization request got, or undefined when it was refused. */
export function codeOf(outcome: AuthorizeOutcome): string | undefined {
  return outcome.kind === 'redirect' ? outcome.params.code : undefined;
}
