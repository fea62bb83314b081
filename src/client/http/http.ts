import { FlowError } from '../../errors.js';
import { redactForm, redactHeaderValue, redactParams, redactUrl } from '../../output/redact.js';
import { harClock, stepOf, type HarActor } from '../../output/har.js';
import { holdRequest, STEP_TITLES, StepSkipped } from '../../output/step.js';
import type { Renderer } from '../../output/render.js';
import { DEFAULT_HTTP_TIMEOUT_SECONDS, deadlineError, RequestDeadline } from '../../http/deadline.js';
import { proxySettings, ResponseTooLarge } from '../../http/outbound.js';
import { createOutbound } from '../../http/request.js';
import { JsonDepthError, parseJson } from '../../oauth/json.js';

export const DEFAULT_HTTP_TIMEOUT_MS = DEFAULT_HTTP_TIMEOUT_SECONDS * 1000;
/** Responses larger than this are cut off with an error: no OAuth endpoint sends that much. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface HttpClientOptions {
  /** Skip TLS certificate verification (never by default; a loud warning is printed). */
  insecure?: boolean | undefined;
  /** The longest a whole request may take, connect to last byte (--http-timeout); default 30 s. */
  timeoutMs?: number | undefined;
  /** Narration; with --verbose each request and response is traced, secrets redacted. */
  renderer?: Renderer | undefined;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read from (the command's io.env); default process.env. */
  env?: NodeJS.ProcessEnv | undefined;
  /**
   * Values the user gave that requests carry under names the trace cannot know (a login form's
   * password field): redacted in the trace wherever a request sends one as a whole value.
   */
  secrets?: readonly string[] | undefined;
  /** Mutual TLS (RFC 8705): the client certificate and its private key, PEM, presented when a server asks. */
  clientCertificate?: { cert: string; key: string } | undefined;
  /** Who sends these requests, for --trace (the renderer's recorder): the client itself by default, or the user agent. */
  actor?: HarActor | undefined;
}

export interface HttpRequestOptions {
  method?: string;
  /** A list sends the header once per value (`call -H` given the same name twice). */
  headers?: Record<string, string | string[]>;
  body?: string;
  signal?: AbortSignal;
  /** Ends the response before its end when it returns true (see OutboundRequest.enough in src/http/outbound.ts). */
  enough?: (status: number, headers: Record<string, string>, body: Buffer) => boolean;
}

export interface HttpResponse {
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON; a FlowError naming the URL when it is not JSON. */
  json<T = unknown>(): T;
}

export interface HttpClient {
  request(url: string | URL, options?: HttpRequestOptions): Promise<HttpResponse>;
  /** A warning about what a server said, on the command's stderr (the renderer's), for code that has no renderer of its own. */
  warn?(text: string): void;
  close(): Promise<void>;
}

/**
 * The client's HTTP: src/http's outbound requests (Node's http and https; undici's EnvHttpProxyAgent
 * when HTTPS_PROXY / HTTP_PROXY is set, NO_PROXY honoured there) with what a command adds: one
 * deadline per request, connect to last byte (--http-timeout), the --verbose trace with secrets
 * redacted, --trace's record, --step, and one line for each failure.
 */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const env = options.env ?? process.env;
  const renderer = options.renderer;
  // --trace scrubs the values the user gave (a login form's password) from its file too, whatever the field is called.
  for (const secret of options.secrets ?? []) renderer?.har?.addSecret(secret);
  if (options.insecure) {
    const text = '--insecure: TLS certificates are NOT verified. Anyone on the network path can read and change this traffic, tokens and secrets included. Never use this outside a test setup.';
    if (renderer) renderer.warn(text);
    else process.emitWarning(text);
  }
  // The command's environment decides (io.env), never process.env behind its back.
  const outbound = createOutbound({ insecure: options.insecure, clientCertificate: options.clientCertificate, proxy: proxySettings(env), timeoutMs });

  async function request(target: string | URL, asked: HttpRequestOptions = {}): Promise<HttpResponse> {
    const held = await holdForStep(renderer, options.actor ?? 'client', String(target), asked);
    const { url, req, edits } = held;
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = { 'user-agent': 'oauthctl', ...req.headers };
    traceRequest(renderer, method, url, headers, req.body, options.secrets ?? []);
    const started = Date.now();
    const startedAt = harClock();
    const deadline = new RequestDeadline(timeoutMs, req.signal);
    const record = (status: number, responseHeaders: Record<string, string>, body: string, error?: string) =>
      renderer?.har?.record({
        actor: options.actor ?? 'client',
        startedAt,
        durationMs: harClock() - startedAt,
        method,
        url,
        requestHeaders: Object.entries(headers).flatMap(([n, v]) => (Array.isArray(v) ? v : [v]).map((value): [string, string] => [n, value])),
        requestBody: req.body,
        status,
        responseHeaders: Object.entries(responseHeaders).flatMap(([n, v]) => (n === 'set-cookie' ? v.split('\n') : [v]).map((value): [string, string] => [n, value])),
        responseBody: body,
        error,
        edits: edits.length > 0 ? edits : undefined,
      });
    let res;
    try {
      res = await outbound.send({ url, method, headers, body: req.body, abort: deadline, maxBytes: MAX_RESPONSE_BYTES, enough: asked.enough });
    } catch (err) {
      const failure = deadline.expired ? deadlineError(`${method} ${url}`, timeoutMs) : networkError(err, method, url, timeoutMs, env);
      record(0, {}, '', failure.message);
      throw failure;
    } finally {
      deadline.clear();
    }
    const { status, headers: responseHeaders, body } = res;
    record(status, responseHeaders, body);
    traceResponse(renderer, status, responseHeaders, body, Date.now() - started);
    return {
      url,
      status,
      headers: responseHeaders,
      body,
      json<T>(): T {
        try {
          return parseJson(body, `the body of ${method} ${url}`) as T;
        } catch (err) {
          if (err instanceof JsonDepthError) throw new FlowError(err.message, 'run with --verbose to see it');
          throw new FlowError(`${method} ${url} answered HTTP ${status} with a body that is not JSON`, 'run with --verbose to see it');
        }
      },
    };
  }

  return {
    request,
    warn: (text) => (renderer ? renderer.warn(text) : process.emitWarning(text)),
    close: () => outbound.close(),
  };
}

/**
 * --step: the client's own requests wait for the person, who may send, edit, skip or abort
 * (src/output/step.ts); a skipped one is recorded as not sent and fails as if no answer came.
 */
async function holdForStep(renderer: Renderer | undefined, actor: HarActor, url: string, req: HttpRequestOptions): Promise<{ url: string; req: HttpRequestOptions; edits: string[] }> {
  const har = renderer?.har;
  if (har?.stepper === undefined || actor !== 'client') return { url, req, edits: [] };
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = Object.entries({ 'user-agent': 'oauthctl', ...req.headers }).flatMap(([n, v]) => (Array.isArray(v) ? v : [v]).map((value): [string, string] => [n, value]));
  const step = stepOf({ actor, method, url, requestBody: req.body, requestHeaders: headers });
  try {
    const { request, edits } = await holdRequest(har, step, STEP_TITLES[step] ?? 'request', { method, url, headers, body: req.body });
    if (edits.length === 0) return { url, req, edits };
    renderer?.warn(`you changed the ${STEP_TITLES[step] ?? 'request'} before it was sent: ${edits.join('; ')}`);
    const edited: Record<string, string[]> = {};
    for (const [name, value] of request.headers) (edited[name] ??= []).push(value);
    return { url: request.url, req: { ...req, method: request.method, headers: edited, body: request.body }, edits };
  } catch (err) {
    if (err instanceof StepSkipped) {
      har.record({
        actor,
        startedAt: harClock(),
        durationMs: 0,
        method,
        url,
        requestHeaders: headers,
        requestBody: req.body,
        status: 0,
        responseHeaders: [],
        responseBody: '',
        error: 'not sent: skipped (--step)',
      });
    }
    throw err;
  }
}

/** One line for a failed request: what happened and what to try. */
function networkError(err: unknown, method: string, url: string, timeoutMs: number, env: NodeJS.ProcessEnv): Error {
  if (err instanceof FlowError) return err;
  const e = err as { code?: string; message?: string; address?: string; port?: number; hostname?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const message = e.cause?.message ?? e.message ?? String(err);
  const where = `${method} ${url}`;
  if (err instanceof ResponseTooLarge) return new FlowError(`${where} failed: ${err.message}`);
  // llhttp's refusals (Node's parser): the reason it gives, as soon as the bytes break HTTP/1.1.
  if (code.startsWith('HPE_')) {
    return new FlowError(
      `${where} failed: the answer is not valid HTTP/1.1: ${message.replace(/^Parse Error: /, '')} (${code})`,
      'is this an HTTP server, and is nothing in front of it rewriting the answer?',
    );
  }
  if (e instanceof Error && e.name === 'AbortError') return new FlowError(`${where} was aborted`);
  const proxy = proxyThatFailed(e, url, env);
  if (proxy !== undefined) {
    return new FlowError(`cannot reach the proxy ${proxy.url} (from ${proxy.variable}) for ${where}: ${code || message}`, `check ${proxy.variable}, or list the host in NO_PROXY`);
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new FlowError(`the TLS certificate of ${url} is for another name: ${message}`, `use the host name the certificate was issued for (not ${new URL(url).hostname}); adding a CA does not help`);
  }
  if (/TIMEOUT/.test(code)) {
    return new FlowError(`${where} timed out after ${Math.round(timeoutMs / 1000)} s (${code})`, 'check that the server is up and reachable, or the proxy settings');
  }
  if (code === 'ECONNREFUSED') return new FlowError(`cannot connect for ${where}: connection refused`, 'is the server running on that address and port?');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new FlowError(`cannot resolve the host of ${url} (${code})`, 'check the URL');
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) {
    return new FlowError(`TLS certificate of ${url} not trusted: ${message} (${code})`, 'add its CA with NODE_EXTRA_CA_CERTS=/path/ca.pem, or use --insecure for a test server only');
  }
  return new FlowError(`${where} failed: ${message}${code ? ` (${code})` : ''}`);
}

/** The proxy a connection error came from: a proxy is set for the URL's scheme and the failed address is not the URL's. */
function proxyThatFailed(e: { port?: number; hostname?: string }, url: string, env: NodeJS.ProcessEnv): { url: string; variable: string } | undefined {
  const target = new URL(url);
  const names = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const variable = names.find((n) => env[n]);
  if (variable === undefined) return undefined;
  const targetPort = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const targetHost = target.hostname.replace(/^\[|\]$/g, '');
  // The port alone: a name such as localhost fails at its address (127.0.0.1), which is still the target.
  const failedElsewhere = e.port !== undefined ? e.port !== targetPort : e.hostname !== undefined && e.hostname !== targetHost;
  return failedElsewhere ? { url: env[variable] ?? '', variable } : undefined;
}

function traceRequest(renderer: Renderer | undefined, method: string, url: string, headers: Record<string, string | string[]>, body: string | undefined, secrets: readonly string[]): void {
  if (!renderer?.verbose) return;
  const show = renderer.showSecrets;
  renderer.trace(`> ${method} ${redactUrl(url, show, secrets)}`);
  for (const [name, values] of Object.entries(headers)) {
    for (const value of Array.isArray(values) ? values : [values]) renderer.trace(`> ${name}: ${redactHeaderValue(name, value, show, secrets)}`);
  }
  if (body !== undefined) {
    const type = String(Object.entries(headers).find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? '');
    renderer.trace('>');
    renderer.trace(`> ${redactBody(body, type, show, secrets)}`);
  }
}

function traceResponse(renderer: Renderer | undefined, status: number, headers: Record<string, string>, body: string, ms: number): void {
  if (!renderer?.verbose) return;
  const show = renderer.showSecrets;
  renderer.trace(`< HTTP ${status} (${ms} ms)`);
  for (const [name, value] of Object.entries(headers)) {
    for (const line of value.split('\n')) renderer.trace(`< ${name}: ${redactHeaderValue(name, line, show)}`);
  }
  if (body !== '') {
    renderer.trace('<');
    renderer.trace(`< ${redactBody(body, headers['content-type'] ?? '', show)}`);
  }
}

/**
 * A body for a trace: form and JSON bodies with their secret fields redacted (by name, and in a
 * request by the `secrets` it sends); other bodies cut short.
 */
export function redactBody(body: string, contentType: string, show: boolean, secrets: readonly string[] = []): string {
  if (/application\/x-www-form-urlencoded/i.test(contentType)) {
    return [...new URLSearchParams(redactForm(body, show, secrets))].map(([k, v]) => `${k}=${v}`).join('&');
  }
  if (/json/i.test(contentType) || /^\s*[{[]/.test(body)) {
    try {
      const parsed: unknown = parseJson(body);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return JSON.stringify(redactParams(parsed as Record<string, unknown>, show, secrets));
      }
      return JSON.stringify(parsed);
    } catch {
      // not JSON after all: shown as text below
    }
  }
  const text = body.length > 2000 ? `${body.slice(0, 2000)}... (${body.length} chars)` : body;
  return text.replace(/\n/g, '\n< ');
}
