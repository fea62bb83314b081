import { FlowError } from '../../errors.js';
import { standardHeaders } from '../../oauth/mcp-headers.js';
import { jsonRpcRequest, MCP_ACCEPT, MCP_MODERN_VERSION, MCP_SUPPORTED_VERSIONS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from '../../oauth/mcp-jsonrpc.js';
import type { HttpClient } from '../http/http.js';
import { listenForRequests, readAnswer, type McpAnswer, type ServerRequestHandler } from './stream.js';

/**
 * The one place every MCP HTTP request gets its authorization: the headers to add (today
 * `Authorization: Bearer`), and each answer's status and headers (a 401's `DPoP-Nonce`, say) before
 * the caller sees it.
 */
export interface McpAuthorization {
  headers(method: string, url: string): Promise<Record<string, string>>;
  answered?(status: number, headers: Record<string, string>): void;
}

export type { McpAnswer } from './stream.js';

const CLIENT_INFO = { name: 'oauthctl', version: '0.1.0' };
/** What oauthctl can answer: elicitation, from --input or a prompt. */
const CLIENT_CAPABILITIES = { elicitation: {} };

/**
 * A conversation with one MCP server over Streamable HTTP, in the revision chosen for it:
 * 2026-07-28 (basic/transports/streamable-http): stateless, every request carrying `_meta` with its
 * version and the client's capabilities, and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
 * headers; or an earlier revision (2025-11-25 basic/transports): the initialize handshake, the
 * session id it gives sent back on every later request, and `MCP-Protocol-Version` once negotiated.
 */
export class McpSession {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private modern = false;
  private nextId = 1;
  /** Answers the server's own requests on an answer's stream (the earlier revisions' elicitation). */
  onServerRequest: ServerRequestHandler | undefined;

  constructor(
    private readonly http: HttpClient,
    readonly url: string,
    private readonly authorization: McpAuthorization,
  ) {}

  get negotiatedVersion(): string | undefined {
    return this.protocolVersion;
  }

  get isModern(): boolean {
    return this.modern;
  }

  /** Speak `version` (2026-07-28 or later) without a handshake. */
  useModern(version: string = MCP_MODERN_VERSION): void {
    this.modern = true;
    this.protocolVersion = version;
    this.sessionId = undefined;
  }

  /** Whether the server gave this session an id (`Mcp-Session-Id`), which every later request carries. */
  get hasSessionId(): boolean {
    return this.sessionId !== undefined;
  }

  /**
   * basic/transports, Session Management: a 404 to a request that carried the session id means the
   * session has ended; the client starts a new one with an initialize that carries none.
   */
  forgetSession(): void {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
  }

  /** A request: the HTTP answer, with the JSON-RPC response read when the status is 2xx. */
  async request(method: string, params: Record<string, unknown> | undefined, extraHeaders: Record<string, string> = {}): Promise<McpAnswer> {
    const id = this.nextId++;
    const sent = this.modern ? this.withMeta(params) : params;
    const headers = this.modern ? { ...standardHeaders(method, sent), ...extraHeaders } : {};
    const auth = () => this.authorization.headers('GET', this.url);
    const answer = await readAnswer(this.http, this.url, {
      id,
      what: method,
      body: JSON.stringify(jsonRpcRequest(method, sent, id)),
      headers: { ...(await this.baseHeaders()), ...headers, ...(await this.authorization.headers('POST', this.url)) },
      // The earlier revisions resume a stream closed before its answer; 2026-07-28 streams are not resumable.
      resume: this.modern ? undefined : { headers: async () => ({ ...(await this.baseHeaders()), ...(await auth()) }) },
      onServerRequest: this.modern ? undefined : this.onServerRequest,
      reply: (message) => this.postMessage(message),
    });
    this.authorization.answered?.(answer.status, answer.headers);
    return answer;
  }

  /**
   * The earlier revisions: listen on the session's GET stream for the server's requests (an elicitation
   * sent outside the call's own stream), answered by onServerRequest; resolves once the server has answered the GET.
   */
  async listen(): Promise<{ stop(): void }> {
    if (this.modern || this.onServerRequest === undefined) return { stop: () => undefined };
    const headers = { ...(await this.baseHeaders()), ...(await this.authorization.headers('GET', this.url)) };
    const listening = listenForRequests(this.http, this.url, headers, this.onServerRequest, (message) => this.postMessage(message));
    await listening.ready;
    return listening;
  }

  /** A notification: the server answers 202 Accepted with no body (basic/transports). */
  async notify(method: string): Promise<McpAnswer> {
    const res = await this.postMessage(jsonRpcRequest(method, undefined));
    return { status: res.status, headers: res.headers };
  }

  /**
   * initialize (basic/lifecycle), offering `version`: the version the server answers must be one this
   * client speaks; the session id it gives is kept. Returns the HTTP answer so that a 401 can start the authorization.
   */
  async initialize(version: string): Promise<McpAnswer> {
    this.modern = false;
    this.protocolVersion = undefined;
    const answer = await this.request('initialize', { protocolVersion: version, capabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO });
    if (answer.response?.result === undefined) return answer;
    const answered = (answer.response.result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof answered !== 'string' || !MCP_SUPPORTED_VERSIONS.includes(answered)) {
      throw new FlowError(
        `the MCP server answered initialize with protocol version ${JSON.stringify(answered).slice(0, 40)}, which oauthctl does not speak`,
        `oauthctl speaks ${MCP_SUPPORTED_VERSIONS.join(', ')} with initialize (basic/lifecycle)`,
      );
    }
    this.protocolVersion = answered;
    const session = answer.headers['mcp-session-id'];
    // basic/transports: visible ASCII only (0x21 to 0x7E).
    if (session !== undefined && /^[\x21-\x7e]+$/.test(session)) this.sessionId = session;
    return answer;
  }

  /** basic/index, _meta: the version, the client's capabilities and who it is, on every 2026-07-28 request. */
  private withMeta(params: Record<string, unknown> | undefined): Record<string, unknown> {
    const meta = {
      ...(params?._meta as Record<string, unknown> | undefined),
      [META_PROTOCOL_VERSION]: this.protocolVersion,
      [META_CLIENT_CAPABILITIES]: CLIENT_CAPABILITIES,
      [META_CLIENT_INFO]: CLIENT_INFO,
    };
    return { ...params, _meta: meta };
  }

  private async baseHeaders(): Promise<Record<string, string>> {
    const headers: Record<string, string> = { accept: MCP_ACCEPT, 'content-type': 'application/json' };
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return headers;
  }

  private async postMessage(message: object) {
    const headers = { ...(await this.baseHeaders()), ...(await this.authorization.headers('POST', this.url)) };
    const res = await this.http.request(this.url, { method: 'POST', headers, body: JSON.stringify(message) });
    this.authorization.answered?.(res.status, res.headers);
    return res;
  }
}
