import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { MockClock } from '../store/clock.js';
import type { MockConfig } from '../config/config.js';
import { HttpError } from './http-error.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { MockQueue } from '../tokens/queue.js';
import type { RequestLog } from './request-log.js';
import type { MockStore } from '../store/store.js';

/** Everything a handler needs: the configuration, the store, the keys, the clock. */
export interface MockState {
  config: MockConfig;
  issuer: string;
  baseUrl: string;
  /** Cookies get `Secure` when the issuer is https. */
  secureCookies: boolean;
  /**
   * The session cookie's name, with the port in it: browsers keep cookies by host, not port, so two
   * mocks on one host would otherwise overwrite each other's session.
   */
  sessionCookie: string;
  /** false with --no-consent: no consent page for any client. */
  consent: boolean;
  autoLogin?: string;
  /** The server speaks TLS itself (--tls): mutual-TLS client authentication and certificate-bound tokens (RFC 8705). */
  mtls?: boolean;
  now(): number;
  /** The clock behind now(), steered by the admin API (POST /_mock/clock). */
  clock: MockClock;
  store: MockStore;
  keys(): Promise<KeyRing>;
  /** What the admin API queued: faults per endpoint, claims and broken tokens for the next tokens. */
  queue: MockQueue;
  /** The endpoint names a fault may be queued for (`token`, `api`, ...): from the router's table. */
  endpoints: ReadonlySet<string>;
  /** The last requests, for GET /_mock/requests and the flows page. */
  requests: RequestLog;
  /**
   * Whether the admin API (/_mock/) answers: `loopback` only to a request whose Host is a loopback
   * name (no DNS rebinding), `any` to every request (--admin), `off` not at all.
   */
  admin: 'off' | 'loopback' | 'any';
  /** The server's issuers, for the protected resources one issuer's routes serve for another (protected-resources.ts). */
  server?: { root: MockState; named: ReadonlyMap<string, MockState> };
}

/** What the request log line says about a request, filled in by the handler. */
export interface LogFields {
  clientId?: string;
  outcome?: string;
  error?: string;
  errorDescription?: string;
  /** The id of the authorization request this request continues (RequestLog, the flows page). */
  flow?: number;
  /** The admin API's queued fault that answered or delayed this request. */
  fault?: string;
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request target's path (as WHATWG URL parsing gives it). */
  path: string;
  /** The query without the `?`, '' when there is none. */
  query: string;
  state: MockState;
  log: LogFields;
  /** The request's id in the request log (an authorization request's id is its flow's). */
  id: number;
}

/** The stylesheet of the pages (here so that the router need not load the page templates). */
export const STYLESHEET_PATH = '/assets/mock.css';

export const MAX_BODY_BYTES = 64 * 1024;

export { HttpError } from './http-error.js';

/** The body each request's handler read, kept for the request log. */
export const readBodies = new WeakMap<IncomingMessage, string>();

/** Reads a request body up to `limit` bytes; past it, 413 (the rest is not read). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new HttpError(413, 'invalid_request', `the request body is larger than ${limit} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, 'invalid_request', `the request body is larger than ${limit} bytes`));
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      readBodies.set(req, text);
      resolve(text);
    });
    req.on('error', reject);
  });
}

/** True when the request carries an application/x-www-form-urlencoded body (RFC 6749 section 4.1.3). */
export function isFormBody(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(type);
}

/** Parameters that may be sent more than once: resource (RFC 8707 section 2) and audience (RFC 8693 section 2.1). */
const REPEATABLE: ReadonlySet<string> = new Set(['resource', 'audience']);

/** The values of repeatable parameters of a parameter map, when one was sent more than once (get gives the first). */
const repeatedValues = new WeakMap<Map<string, string>, Map<string, string[]>>();

/** Adds a value of a repeatable parameter: the first is also what get gives. */
export function addParam(values: Map<string, string>, key: string, value: string): void {
  if (!values.has(key)) return void values.set(key, value);
  let repeated = repeatedValues.get(values);
  if (!repeated) repeatedValues.set(values, (repeated = new Map()));
  const list = repeated.get(key);
  if (list) list.push(value);
  else repeated.set(key, [values.get(key)!, value]);
}

/** Every value of a parameter: all of a repeatable one, else the one. */
export function allParams(values: Map<string, string>, key: string): string[] {
  const list = repeatedValues.get(values)?.get(key);
  if (list) return list;
  const value = values.get(key);
  return value === undefined ? [] : [value];
}

/**
 * The parameters of a query string or form body (application/x-www-form-urlencoded), with one value
 * each. RFC 6749 section 3.1: parameters sent without a value are treated as omitted, and no parameter
 * may be included more than once (`duplicate` names the first such), but for the repeatable ones.
 */
export function singleParams(text: string): { values: Map<string, string>; duplicate?: string } {
  const values = new Map<string, string>();
  let empty: Set<string> | undefined;
  let duplicate: string | undefined;
  for (const [key, value] of formEntries(text)) {
    if (REPEATABLE.has(key)) {
      if (value !== '') addParam(values, key, value);
      continue;
    }
    if (values.has(key) || empty?.has(key)) duplicate ??= key;
    if (value !== '') values.set(key, value);
    else (empty ??= new Set()).add(key);
  }
  return duplicate === undefined ? { values } : { values, duplicate };
}

const parsedQueries = new WeakMap<Exchange, ReturnType<typeof singleParams>>();

/** singleParams of the request's query, parsed once per request (the authorization endpoint's wrapper reads it first). */
export function queryParams(ex: Exchange): ReturnType<typeof singleParams> {
  let parsed = parsedQueries.get(ex);
  if (!parsed) parsedQueries.set(ex, (parsed = singleParams(ex.query)));
  return parsed;
}

/**
 * The name-value pairs of application/x-www-form-urlencoded text, as the WHATWG URL standard parses
 * them: split on '&', then on the first '=', '+' is a space, percent-decoded as UTF-8. Text whose
 * percent-encoding decodeURIComponent refuses (a stray '%', bytes that are not UTF-8) goes through
 * URLSearchParams, which keeps such sequences as they are.
 */
function formEntries(text: string): Iterable<[string, string]> {
  const entries: [string, string][] = [];
  try {
    for (const part of text.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      entries.push(eq < 0 ? [decodeFormComponent(part), ''] : [decodeFormComponent(part.slice(0, eq)), decodeFormComponent(part.slice(eq + 1))]);
    }
    return entries;
  } catch {
    return new URLSearchParams(text);
  }
}

function decodeFormComponent(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  return spaced.includes('%') ? decodeURIComponent(spaced) : spaced;
}

/**
 * Every response of the mock goes out through here, at the end of the event-loop turn in which it was
 * made, together with the others made in that turn, rather than each at once: a client on the same
 * machine (the mock's usual one: tests, CI, demos) is then woken once per batch of responses instead of
 * once per response, which on a small or virtual machine costs more than the response itself. The
 * status is set at once, so that the request log sees it; the wait is one turn of the loop.
 */
export function respond(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body?: string): void {
  if (hasResponded(res)) throw new Error('a second response to one request');
  res.statusCode = status;
  responded.add(res);
  if (outbox.length === 0) setImmediate(flushOutbox);
  outbox.push({ res, status, headers, body });
}

/** True once a response is on its way (maybe not yet written). */
export function hasResponded(res: ServerResponse): boolean {
  return res.headersSent || responded.has(res);
}

const responded = new WeakSet<ServerResponse>();
let outbox: { res: ServerResponse; status: number; headers: OutgoingHttpHeaders; body: string | undefined }[] = [];

function flushOutbox(): void {
  const batch = outbox;
  outbox = [];
  for (const { res, status, headers, body } of batch) {
    try {
      res.writeHead(status, headers);
      res.end(body);
    } catch {
      // The connection went away meanwhile: nothing to tell it.
      res.destroy();
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  respond(res, status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff', ...headers }, text);
}

/**
 * An error_description as RFC 6749 section 5.2 (and RFC 6750 section 3) allows it: %x20-21 / %x23-5B /
 * %x5D-7E only. Double quotes become single quotes, backslashes go, any other character outside the set
 * (control characters, non-ASCII from echoed input) becomes '?'.
 */
export function errorDescription(text: string): string {
  return text
    .replace(/\\/g, '')
    .replace(/"/g, "'")
    .replace(/[^\x20-\x7e]/g, '?');
}

/** A value quoted inside an error_description or page message: 'value' (sanitized when it is emitted). */
export function q(value: string): string {
  return `'${value}'`;
}

/** RFC 6749 section 5.2 error body; `no-store` as for every token-endpoint response (section 5.1). */
export function sendOAuthError(ex: Exchange, status: number, error: string, text: string, headers: Record<string, string> = {}): void {
  const description = errorDescription(text);
  ex.log.error = error;
  ex.log.errorDescription = description;
  ex.log.outcome ??= 'refused';
  sendJson(ex.res, status, { error, error_description: description }, { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers });
}

export function redirect(res: ServerResponse, location: string, status = 302): void {
  respond(res, status, { Location: location, 'Cache-Control': 'no-store', 'Content-Length': 0 });
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}
