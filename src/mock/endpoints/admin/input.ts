import { MAX_LIFETIME } from '../../core/config/config.js';
import { BROKEN_TOKEN_KINDS, type BrokenTokenKind, type Fault } from '../../core/tokens/queue.js';
import { isJsonObject } from '../../../oauth/json.js';

/** An admin request or library call with bad input: `field` names what is wrong (400 over HTTP). */
export class MockAdminError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'MockAdminError';
  }
}

/** POST /_mock/tokens, MockServer.issueToken. */
export interface IssueTokenInput {
  sub: string;
  client_id?: string;
  scope?: string;
  claims?: Record<string, unknown>;
  expires_in?: number;
}

/** A token response (RFC 6749 section 5.1) as the admin API answers it. */
export interface MockTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** POST /_mock/next, MockServer.enqueue: one of the three shapes. */
export type EnqueueInput =
  { claims: Record<string, unknown> } | { endpoint: string; status?: number; error?: string; error_description?: string; delay_ms?: number; times?: number } | { token: BrokenTokenKind };

export type Queued = { kind: 'claims'; claims: Record<string, unknown> } | { kind: 'fault'; endpoint: string; fault: Fault } | { kind: 'token'; token: BrokenTokenKind };

export const MAX_DELAY_MS = 60_000;
const MAX_TIMES = 1000;
/** RFC 6749 section 5.2: error and error_description are %x20-21 / %x23-5B / %x5D-7E (error without spaces). */
const ERROR_CODE = /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/;
const ERROR_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]{0,1000}$/;

type Obj = Record<string, unknown>;

/** The input must be a JSON object with only these fields. */
export function fields(input: unknown, known: readonly string[]): Obj {
  if (!isJsonObject(input)) throw new MockAdminError('body', 'must be a JSON object');
  for (const key of Object.keys(input)) if (!known.includes(key)) throw new MockAdminError(key, `unknown field (known: ${known.join(', ')})`);
  return input;
}

function integer(value: unknown, field: string, min: number, max: number, unit = ''): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw new MockAdminError(field, `must be a whole number${unit} from ${min} to ${max}`);
  return value;
}

function claimsObject(value: unknown, field: string): Obj | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) throw new MockAdminError(field, 'must be a JSON object of claims');
  return value;
}

export function parseIssueToken(input: unknown): { sub: string; clientId?: string; scope?: string; claims?: Obj; expiresIn?: number } {
  const o = fields(input, ['sub', 'client_id', 'scope', 'claims', 'expires_in']);
  if (typeof o.sub !== 'string' || o.sub === '' || o.sub.length > 255) throw new MockAdminError('sub', 'must be a non-empty string (the subject, at most 255 characters)');
  if (o.client_id !== undefined && typeof o.client_id !== 'string') throw new MockAdminError('client_id', 'must be a string');
  if (o.scope !== undefined && typeof o.scope !== 'string') throw new MockAdminError('scope', 'must be a string of space-separated scopes');
  const claims = claimsObject(o.claims, 'claims');
  const expiresIn = integer(o.expires_in, 'expires_in', 1, MAX_LIFETIME, ' of seconds');
  return {
    sub: o.sub,
    ...(o.client_id !== undefined ? { clientId: o.client_id } : {}),
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    ...(claims ? { claims } : {}),
    ...(expiresIn !== undefined ? { expiresIn } : {}),
  };
}

export function parseEnqueue(input: unknown, endpoints: ReadonlySet<string>): Queued {
  if (!isJsonObject(input)) throw new MockAdminError('body', 'must be a JSON object');
  const kinds = ['claims', 'endpoint', 'token'].filter((k) => input[k] !== undefined);
  if (kinds.length !== 1) throw new MockAdminError('body', 'must have exactly one of claims, endpoint or token');
  if (kinds[0] === 'claims') {
    fields(input, ['claims']);
    return { kind: 'claims', claims: claimsObject(input.claims, 'claims')! };
  }
  if (kinds[0] === 'token') {
    fields(input, ['token']);
    if (!BROKEN_TOKEN_KINDS.includes(input.token as BrokenTokenKind)) throw new MockAdminError('token', `must be one of ${BROKEN_TOKEN_KINDS.join(', ')}`);
    return { kind: 'token', token: input.token as BrokenTokenKind };
  }
  const o = fields(input, ['endpoint', 'status', 'error', 'error_description', 'delay_ms', 'times']);
  if (typeof o.endpoint !== 'string' || !endpoints.has(o.endpoint)) throw new MockAdminError('endpoint', `must be one of ${[...endpoints].join(', ')}`);
  const status = integer(o.status, 'status', 400, 599);
  if (o.error !== undefined && (typeof o.error !== 'string' || !ERROR_CODE.test(o.error)))
    throw new MockAdminError('error', 'must be an OAuth error code: printable ASCII without spaces, quotes or backslashes (RFC 6749 section 5.2)');
  if (o.error_description !== undefined && (typeof o.error_description !== 'string' || !ERROR_TEXT.test(o.error_description)))
    throw new MockAdminError('error_description', 'must be printable ASCII without quotes or backslashes, at most 1000 characters (RFC 6749 section 5.2)');
  const delayMs = integer(o.delay_ms, 'delay_ms', 0, MAX_DELAY_MS, ' of milliseconds');
  const times = integer(o.times, 'times', 1, MAX_TIMES) ?? 1;
  if (status === undefined && o.error === undefined && delayMs === undefined) throw new MockAdminError('status', 'give status, error or delay_ms (or several)');
  const fault: Fault = { times };
  if (status !== undefined) fault.status = status;
  if (typeof o.error === 'string') fault.error = o.error;
  if (typeof o.error_description === 'string') fault.errorDescription = o.error_description;
  if (delayMs !== undefined) fault.delayMs = delayMs;
  return { kind: 'fault', endpoint: o.endpoint, fault };
}

export function parseClock(input: unknown): { advance: number } | { set: number } {
  const o = fields(input, ['advance', 'set']);
  if ((o.advance === undefined) === (o.set === undefined)) throw new MockAdminError('body', 'must have exactly one of advance (seconds) or set (epoch seconds)');
  if (o.advance !== undefined) return { advance: seconds(o.advance, 'advance', -MAX_LIFETIME, MAX_LIFETIME) };
  return { set: seconds(o.set, 'set', 0, 253_402_300_799) };
}

/** A number of seconds (fractions allowed) within bounds. */
export function seconds(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw new MockAdminError(field, `must be a number of seconds from ${min} to ${max}`);
  return value;
}

/** `{"issuer": NAME | null}` of POST /_mock/mcp/authorization-server: a named issuer of this server, or null for the root one. */
export function parseMoveTarget(input: unknown, named: readonly string[]): string | undefined {
  const o = fields(input, ['issuer']);
  if (o.issuer === null) return undefined;
  if (typeof o.issuer !== 'string' || !named.includes(o.issuer)) {
    throw new MockAdminError(
      'issuer',
      `must be the name of a named issuer of this server (${named.join(', ') || 'none configured: add one under "issuers" in --config'}), or null for the root issuer`,
    );
  }
  return o.issuer;
}
