import type { Stepper } from './step.js';

/**
 * `--trace FILE`: every HTTP exchange of a command, as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/).
 * The HTTP client, the headless agent and the loopback listener record into one HarRecorder; the
 * file is built from it, secrets redacted, when the command ends, however it ends.
 */

/** The header on every answer of oauthctl's own redirect listener (a 404 for a path it does not serve...): a trace names them as oauthctl's, not the server's. */
export const LISTENER_HEADER = 'x-oauthctl-listener';

/** Who sent a request: the client itself, the user agent (browser side), or the loopback listener's view of the redirect. */
export const HAR_ACTORS = ['client', 'user-agent', 'listener'] as const;
export type HarActor = (typeof HAR_ACTORS)[number];

/** One exchange as it happened, nothing redacted yet. */
export interface RecordedExchange {
  actor: HarActor;
  startedAt: number;
  durationMs: number;
  method: string;
  url: string;
  requestHeaders: [string, string][];
  requestBody?: string | undefined;
  /** 0 when no response came (the error says why). */
  status: number;
  responseHeaders: [string, string][];
  responseBody: string;
  error?: string | undefined;
  /**
   * The client sending the user agent to the authorization endpoint (RFC 6749 section 4.1, step A):
   * the request as the client made it; the answer goes to the browser, which oauthctl sees only with --headless.
   */
  handoff?: boolean | undefined;
  /** --step: what the person changed before it was sent, a line each (`scope: "a b" -> "a"`). */
  edits?: string[] | undefined;
  /** The audit probe it was made for (the recorder's group when it was recorded). */
  group?: string | undefined;
}

/** An audit probe as the live page shows it: its exchanges are those recorded while it ran. */
export interface RecordedGroup {
  id: string;
  title: string;
  category: string;
  /** Set when it has finished: pass, fail, warn or skip, and the line that says why. */
  status?: string | undefined;
  detail?: string | undefined;
}

/** The epoch milliseconds of process.hrtime's zero, taken on first use. */
let hrtimeZero: number | undefined;

/**
 * Now, in milliseconds since the epoch with a fraction: two exchanges that start in the same millisecond
 * keep their order. From process.hrtime rather than `performance`, whose first use loads perf_hooks
 * (a millisecond or two of every command that makes a request, trace or not).
 */
export function harClock(): number {
  const now = Number(process.hrtime.bigint()) / 1e6;
  hrtimeZero ??= Date.now() - now;
  return hrtimeZero + now;
}

export class HarRecorder {
  readonly exchanges: RecordedExchange[] = [];
  /** Values to scrub wherever they appear, whatever their field is called (a login form's password). */
  readonly secrets = new Set<string>();
  private readonly underWay = new Set<Promise<void>>();
  private readonly watchers = new Set<() => void>();
  /** --step: asked before each request of the flow is sent (src/output/step.ts). */
  stepper?: Stepper | undefined;
  /** The audit's probes, in the order they started; `current` is the one running. */
  readonly groups: RecordedGroup[] = [];
  private current?: RecordedGroup | undefined;
  /** How the command ended, once it has (the live page shows it): undefined while it runs. */
  ending?: { code: number; message?: string | undefined } | undefined;

  /** Work that records more after the flow went on (a browser finishing its last requests): the file waits for it. */
  later(work: Promise<unknown>): void {
    const done: Promise<void> = work.then(
      () => undefined,
      () => undefined,
    );
    this.underWay.add(done);
    void done.then(() => this.underWay.delete(done));
  }

  /** Resolves once all the work given to later() has ended. */
  async settled(): Promise<void> {
    while (this.underWay.size > 0) await Promise.all(this.underWay);
  }

  record(exchange: RecordedExchange): void {
    this.exchanges.push(this.current && exchange.group === undefined ? { ...exchange, group: this.current.id } : exchange);
    this.changed();
  }

  /** --ui: called after each change (an exchange, a probe starting or ending, the command's end); returns the unsubscribe. */
  watch(listener: () => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** A probe starts: the exchanges recorded until the next one are its. */
  beginGroup(group: RecordedGroup): void {
    this.current = { ...group };
    this.groups.push(this.current);
    this.changed();
  }

  endGroup(id: string, status: string, detail: string): void {
    const group = this.groups.find((g) => g.id === id);
    if (group) Object.assign(group, { status, detail });
    if (this.current?.id === id) this.current = undefined;
    this.changed();
  }

  end(code: number, message?: string): void {
    this.ending = { code, message };
    this.changed();
  }

  changed(): void {
    for (const listener of this.watchers) listener();
  }

  addSecret(value: string): void {
    if (value !== '') this.secrets.add(value);
  }
}

/** The steps of an OAuth flow an exchange can be: what the trace view and `--check` read. */
export const FLOW_STEPS = [
  'discovery',
  'jwks',
  'par',
  'authorization',
  'login',
  'callback',
  'token',
  'refresh',
  'client-credentials',
  'token-exchange',
  'device-authorization',
  'registration',
  'introspection',
  'revocation',
  'userinfo',
  'end-session',
  'resource',
] as const;
export type FlowStep = (typeof FLOW_STEPS)[number];

export interface HarOauthctlFields {
  actor: HarActor;
  step: FlowStep;
  error?: string;
  handoff?: true;
  /** --step: the person's changes to the request before it was sent. */
  edited?: string[];
  /** The audit probe the exchange was made for. */
  probe?: string;
}

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string; params?: HarNameValue[] };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _error?: string;
  };
  cache: Record<string, never>;
  /** HAR 1.2's free comment: an edited request says so here too. */
  comment?: string;
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  _oauthctl: HarOauthctlFields;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    pages: [];
    entries: HarEntry[];
    _oauthctl?: { redacted: boolean };
  };
}

const GRANT_STEPS: Readonly<Record<string, FlowStep>> = {
  authorization_code: 'token',
  refresh_token: 'refresh',
  client_credentials: 'client-credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'token-exchange',
  'urn:ietf:params:oauth:grant-type:device_code': 'token',
};

/** The step an exchange was, read from the request itself (one place for this rule). */
export function stepOf(exchange: Pick<RecordedExchange, 'actor' | 'method' | 'url' | 'requestBody' | 'requestHeaders'>): FlowStep {
  if (exchange.actor === 'listener') return 'callback';
  let url: URL;
  try {
    url = new URL(exchange.url);
  } catch {
    return 'resource';
  }
  const path = url.pathname.toLowerCase();
  const query = url.searchParams;
  const form = isForm(exchange.requestHeaders) && exchange.requestBody !== undefined ? new URLSearchParams(exchange.requestBody) : new URLSearchParams();
  if (query.has('response_type') || (query.has('request_uri') && query.has('client_id'))) return 'authorization';
  if (exchange.actor === 'user-agent') {
    if (query.has('code') || query.has('error') || form.has('code')) return 'callback';
    if (/logout|end_?session/.test(path)) return 'end-session';
    return 'login';
  }
  if (path.includes('/.well-known/')) return 'discovery';
  const grant = form.get('grant_type');
  if (grant !== null) return GRANT_STEPS[grant] ?? 'token';
  if (/jwks|\/certs$/.test(path)) return 'jwks';
  if (/\/par$|pushed/.test(path)) return 'par';
  if (/device_?authori[sz]ation|\/device\/code$/.test(path)) return 'device-authorization';
  if (/introspect/.test(path)) return 'introspection';
  if (/revoke|revocation/.test(path)) return 'revocation';
  if (/userinfo/.test(path)) return 'userinfo';
  if (/\/register(\/|$)/.test(path)) return 'registration';
  if (/logout|end_?session/.test(path)) return 'end-session';
  return 'resource';
}

function isForm(headers: readonly [string, string][]): boolean {
  return headers.some(([n, v]) => n.toLowerCase() === 'content-type' && /application\/x-www-form-urlencoded/i.test(v));
}

function header(headers: readonly [string, string][], name: string): string | undefined {
  return headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

function toEntry(x: RecordedExchange): HarEntry {
  const url = safeUrl(x.url);
  const requestType = header(x.requestHeaders, 'content-type');
  const responseType = header(x.responseHeaders, 'content-type') ?? '';
  const location = header(x.responseHeaders, 'location');
  return {
    startedDateTime: new Date(x.startedAt).toISOString(),
    time: x.durationMs,
    request: {
      method: x.method,
      url: x.url,
      httpVersion: 'HTTP/1.1',
      cookies: requestCookies(header(x.requestHeaders, 'cookie')),
      headers: x.requestHeaders.map(([name, value]) => ({ name, value })),
      queryString: url ? [...url.searchParams].map(([name, value]) => ({ name, value })) : [],
      ...(x.requestBody !== undefined
        ? {
            postData: {
              mimeType: requestType ?? 'application/octet-stream',
              text: x.requestBody,
              ...(requestType && /application\/x-www-form-urlencoded/i.test(requestType) ? { params: [...new URLSearchParams(x.requestBody)].map(([name, value]) => ({ name, value })) } : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: x.requestBody === undefined ? 0 : Buffer.byteLength(x.requestBody),
    },
    response: {
      status: x.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: x.responseHeaders.filter(([n]) => n.toLowerCase() === 'set-cookie').map(([, v]) => setCookie(v)),
      headers: x.responseHeaders.map(([name, value]) => ({ name, value })),
      content: { size: Buffer.byteLength(x.responseBody), mimeType: responseType || 'x-unknown', text: x.responseBody },
      redirectURL: location ?? '',
      headersSize: -1,
      bodySize: x.status === 0 ? -1 : Buffer.byteLength(x.responseBody),
      ...(x.error !== undefined ? { _error: x.error } : {}),
    },
    cache: {},
    ...(x.edits?.length ? { comment: `edited by the user before it was sent (--step): ${x.edits.join('; ')}` } : {}),
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: x.durationMs, receive: 0 },
    _oauthctl: {
      actor: x.actor,
      step: stepOf(x),
      ...(x.error !== undefined ? { error: x.error } : {}),
      ...(x.handoff ? { handoff: true as const } : {}),
      ...(x.edits?.length ? { edited: x.edits } : {}),
      ...(x.group !== undefined ? { probe: x.group } : {}),
    },
  };
}

function requestCookies(value: string | undefined): HarNameValue[] {
  if (value === undefined) return [];
  return value
    .split(/;\s*/)
    .filter((pair) => pair.includes('='))
    .map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1) }));
}

function setCookie(line: string): HarNameValue {
  const pair = line.split(';')[0] ?? '';
  const at = pair.indexOf('=');
  return at < 0 ? { name: pair.trim(), value: '' } : { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The HAR document of what was recorded, in the order the requests started, nothing redacted (har-redact.ts does that). */
export function buildHar(recorder: HarRecorder, options: { redacted: boolean; version: string }): Har {
  const exchanges = [...recorder.exchanges].sort((a, b) => a.startedAt - b.startedAt);
  return {
    log: {
      version: '1.2',
      creator: { name: 'oauthctl', version: options.version },
      pages: [],
      entries: exchanges.map(toEntry),
      _oauthctl: { redacted: options.redacted },
    },
  };
}
