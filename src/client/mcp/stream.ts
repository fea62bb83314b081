import { FlowError } from '../../errors.js';
import { isJsonObject, jsonNestsDeeperThan } from '../../oauth/json.js';
import { findResponse, MAX_SSE_MESSAGES, McpFramingError, parseMcpMessages, type JsonRpcError, type JsonRpcId, type JsonRpcResponse } from '../../oauth/mcp-jsonrpc.js';
import { SseParser } from '../../oauth/mcp-sse.js';
import type { HttpClient, HttpResponse } from '../http/http.js';

/** An HTTP answer to one POST: the JSON-RPC response in it when it was a success (2xx), the error in the body of a failure. */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  response?: JsonRpcResponse;
  /** A failure's body, for its text (bounded). */
  body?: string;
  /** A failure's JSON-RPC error, when its body is one. */
  error?: JsonRpcError;
}

/** A request of the server's on an answer's stream (the earlier revisions' elicitation/create), answered with a result or an error. */
export type ServerRequestHandler = (request: { method: string; params: Record<string, unknown> }) => Promise<{ result: unknown } | { error: JsonRpcError }>;

/** How often a stream closed before its answer is resumed (basic/transports, Resumability and Redelivery). */
export const MAX_RESUMPTIONS = 3;
/** Without a `retry` from the server, the wait before a resumption; a longer `retry` is cut to the longest wait. */
const DEFAULT_RETRY_MS = 1000;
const MAX_RETRY_MS = 10_000;
/** The server's own requests answered on one stream at most. */
const MAX_SERVER_REQUESTS = 10;

export interface AnswerRequest {
  id: JsonRpcId;
  /** The method, for messages. */
  what: string;
  body: string;
  headers: Record<string, string>;
  /** The earlier revisions: a stream that closes before its answer is resumed with a GET carrying these headers and Last-Event-ID. */
  resume?: { headers(): Promise<Record<string, string>> } | undefined;
  onServerRequest?: ServerRequestHandler | undefined;
  /** Sends a JSON-RPC response to a request of the server's. */
  reply(message: object): Promise<HttpResponse>;
}

/**
 * POSTs one request and reads its answer: one JSON body, or an event stream read event by event, whose
 * response with the request's id ends the wait at once (the stream is closed, whatever the server keeps
 * sending after it: keep-alive comments, notifications). The server's requests on the stream are
 * answered as they come. A stream that ends before the answer is resumed when `resume` is given.
 */
export async function readAnswer(http: HttpClient, url: string, req: AnswerRequest): Promise<McpAnswer> {
  const reading = new StreamReading(req);
  let res = await reading.run(() => http.request(url, { method: 'POST', headers: req.headers, body: req.body, enough: reading.enough, signal: reading.signal }));
  if (res.status < 200 || res.status >= 300) return failure(res);
  const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'text/event-stream') {
    try {
      const response = findResponse(parseMcpMessages(res.headers['content-type'], res.body), req.id);
      if (response === undefined) throw new FlowError(`the MCP server's answer to ${req.what} has no response with id ${req.id}`, 'run with --verbose to see it (basic/transports)');
      return { status: res.status, headers: res.headers, response };
    } catch (err) {
      throw framing(req.what, err);
    }
  }
  for (let resumed = 0; reading.response === undefined; resumed++) {
    reading.finish(res.body);
    if (reading.response !== undefined) break;
    if (req.resume === undefined || reading.lastEventId === undefined || resumed >= MAX_RESUMPTIONS) {
      throw new FlowError(
        `the MCP server's event stream for ${req.what} ended before its answer${resumed > 0 ? ` (resumed ${resumed} times)` : ''}`,
        req.resume === undefined ? 'a 2026-07-28 stream cannot be resumed (basic/transports/streamable-http)' : 'run with --verbose to see the streams (basic/transports, Resumability and Redelivery)',
      );
    }
    // basic/transports (2025-11-25), Resumability: a GET with Last-Event-ID, after the server's `retry`.
    await new Promise((resolve) => setTimeout(resolve, Math.min(reading.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS)));
    const headers: Record<string, string> = { ...(await req.resume.headers()), accept: 'text/event-stream', 'last-event-id': reading.lastEventId };
    delete headers['content-type'];
    reading.restart();
    res = await reading.run(() => http.request(url, { method: 'GET', headers, enough: reading.enough, signal: reading.signal }));
    if (res.status < 200 || res.status >= 300) return failure(res);
  }
  return { status: res.status, headers: res.headers, response: reading.response };
}

/** A failure's status, headers, body (bounded) and JSON-RPC error when its body is one. */
function failure(res: HttpResponse): McpAnswer {
  const body = res.body.slice(0, 4096);
  let error: JsonRpcError | undefined;
  if (/json/i.test(res.headers['content-type'] ?? '') && !jsonNestsDeeperThan(body)) {
    try {
      const value: unknown = JSON.parse(body);
      const e = isJsonObject(value) ? value.error : undefined;
      if (isJsonObject(e) && typeof e.code === 'number' && typeof e.message === 'string') error = { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) };
    } catch {
      error = undefined;
    }
  }
  return { status: res.status, headers: res.headers, body, ...(error && { error }) };
}

function framing(what: string, err: unknown): unknown {
  if (err instanceof McpFramingError) return new FlowError(`the MCP server's answer to ${what} is not valid: ${err.message}`, 'run with --verbose to see it (basic/transports)');
  return err;
}

/** The state of reading one request's event streams (the POST's, then each resumption's). */
class StreamReading {
  private parser = new SseParser();
  private messages = 0;
  private serverRequests = 0;
  private failed: unknown;
  private readonly abort = new AbortController();
  private readonly replies: Promise<unknown>[] = [];
  response: McpAnswer['response'];
  lastEventId: string | undefined;
  retryMs: number | undefined;

  constructor(private readonly req: AnswerRequest) {}

  /** The request, its failure replaced by what stopped the reading (a framing error, a refused input). */
  async run(send: () => Promise<HttpResponse>): Promise<HttpResponse> {
    let res: HttpResponse;
    try {
      res = await send();
    } catch (err) {
      await Promise.allSettled(this.replies);
      throw this.failed ?? err;
    }
    await Promise.allSettled(this.replies);
    if (this.failed !== undefined) throw this.failed;
    return res;
  }

  restart(): void {
    this.parser = new SseParser();
  }

  /** After a stream ended: an event left without its blank line is taken too. */
  finish(body: string): void {
    try {
      this.take(this.parser.end(Buffer.from(body, 'utf8')));
    } catch (err) {
      throw framing(this.req.what, err);
    }
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  readonly enough = (status: number, headers: Record<string, string>, body: Buffer): boolean => {
    if (status < 200 || status >= 300 || !/^text\/event-stream/i.test(headers['content-type'] ?? '')) return false;
    try {
      this.take(this.parser.feed(body));
    } catch (err) {
      this.failed = framing(this.req.what, err);
      return true;
    }
    return this.response !== undefined || this.failed !== undefined;
  };

  private take(events: { data: string }[]): void {
    this.lastEventId = this.parser.lastEventId ?? this.lastEventId;
    this.retryMs = this.parser.retryMs ?? this.retryMs;
    for (const { data } of events) {
      if (data.trim() === '') continue;
      if (++this.messages > MAX_SSE_MESSAGES) throw new McpFramingError(`the event stream has more than ${MAX_SSE_MESSAGES} events`);
      const messages = parseMcpMessages('application/json', data);
      const response = findResponse(messages, this.req.id);
      if (response !== undefined) {
        this.response = response;
        return;
      }
      for (const m of messages) if (isJsonObject(m) && typeof m.method === 'string' && m.id !== undefined) this.serverRequest(m);
    }
  }

  /** A request of the server's (basic/transports 2025-11-25: sent on the stream before the answer): answered, or refused. */
  private serverRequest(m: Record<string, unknown>): void {
    const id = m.id as JsonRpcId;
    const handler = this.req.onServerRequest;
    if (handler === undefined || ++this.serverRequests > MAX_SERVER_REQUESTS) {
      this.replies.push(this.req.reply({ jsonrpc: '2.0', id, error: { code: -32601, message: 'oauthctl does not answer this request' } }).catch(() => undefined));
      return;
    }
    const params = isJsonObject(m.params) ? m.params : {};
    this.replies.push(
      handler({ method: m.method as string, params })
        .then((outcome) => this.req.reply({ jsonrpc: '2.0', id, ...outcome }))
        .catch((err: unknown) => {
          this.failed ??= err;
          this.abort.abort();
        }),
    );
  }
}

/**
 * The earlier revisions' stream of the server's own messages (2025-11-25 basic/transports, Listening for
 * Messages from the Server): a GET whose events may carry requests unrelated to any POST (an
 * elicitation a server sends outside the call's stream), each answered with a POST. `ready` settles
 * once the server has answered the GET (a 405 included: then it has no such stream); `stop` closes it.
 */
export function listenForRequests(
  http: HttpClient,
  url: string,
  headers: Record<string, string>,
  onServerRequest: ServerRequestHandler,
  reply: (message: object) => Promise<HttpResponse>,
): { ready: Promise<void>; stop(): void } {
  const abort = new AbortController();
  const parser = new SseParser();
  let handled = 0;
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => (opened = resolve));
  const enough = (status: number, answered: Record<string, string>, body: Buffer): boolean => {
    opened();
    if (status !== 200 || !/^text\/event-stream/i.test(answered['content-type'] ?? '')) return true;
    try {
      for (const { data } of parser.feed(body)) {
        if (data.trim() === '') continue;
        for (const m of parseMcpMessages('application/json', data)) {
          if (!isJsonObject(m) || typeof m.method !== 'string' || m.id === undefined || ++handled > MAX_SERVER_REQUESTS) continue;
          const id = m.id as JsonRpcId;
          void onServerRequest({ method: m.method, params: isJsonObject(m.params) ? m.params : {} })
            .then((outcome) => reply({ jsonrpc: '2.0', id, ...outcome }))
            .catch(() => abort.abort());
        }
      }
    } catch {
      return true;
    }
    return false;
  };
  const get = { ...headers, accept: 'text/event-stream' } as Record<string, string>;
  delete get['content-type'];
  http
    .request(url, { method: 'GET', headers: get, enough, signal: abort.signal })
    .catch(() => undefined)
    .finally(opened);
  return { ready, stop: () => abort.abort() };
}
