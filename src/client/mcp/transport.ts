import { FlowError } from '../../errors.js';
import { findResponse, jsonRpcRequest, MCP_ACCEPT, MCP_PROTOCOL_VERSION, MCP_SUPPORTED_VERSIONS, McpFramingError, parseMcpMessages, type JsonRpcResponse } from '../../oauth/mcp-jsonrpc.js';
import type { HttpClient } from '../http.js';

/** An HTTP answer to one POST, and the JSON-RPC response in it when it was a success (2xx). */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  response?: JsonRpcResponse;
}

/**
 * One MCP session over Streamable HTTP (MCP specification 2025-11-25, basic/transports): every message a
 * POST to the one endpoint, `Accept` naming both kinds of answer, the session id the server gives on
 * initialize sent back on every later request, and `MCP-Protocol-Version` once it is negotiated.
 */
export class McpSession {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private nextId = 1;

  constructor(
    private readonly http: HttpClient,
    readonly url: string,
  ) {}

  get negotiatedVersion(): string | undefined {
    return this.protocolVersion;
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

  /** A request: the HTTP answer, with the JSON-RPC response parsed when the status is 2xx. */
  async request(method: string, params: Record<string, unknown> | undefined, accessToken: string | undefined): Promise<McpAnswer> {
    const id = this.nextId++;
    const res = await this.post(jsonRpcRequest(method, params, id), accessToken);
    if (res.status < 200 || res.status >= 300) return { status: res.status, headers: res.headers };
    let response: JsonRpcResponse | undefined;
    try {
      response = findResponse(parseMcpMessages(res.headers['content-type'], res.body), id);
    } catch (err) {
      if (err instanceof McpFramingError) throw new FlowError(`the MCP server's answer to ${method} is not valid: ${err.message}`, 'run with --verbose to see it (basic/transports)');
      throw err;
    }
    if (response === undefined) throw new FlowError(`the MCP server's answer to ${method} has no response with id ${id}`, 'run with --verbose to see it (basic/transports)');
    return { status: res.status, headers: res.headers, response };
  }

  /** A notification: the server answers 202 Accepted with no body (basic/transports). */
  async notify(method: string, accessToken: string | undefined): Promise<McpAnswer> {
    const res = await this.post(jsonRpcRequest(method, undefined), accessToken);
    return { status: res.status, headers: res.headers };
  }

  /**
   * initialize (basic/lifecycle): the version the server answers must be one this client speaks; the
   * session id it gives is kept. Returns the HTTP answer so that a 401 can start the authorization.
   */
  async initialize(accessToken: string | undefined): Promise<McpAnswer> {
    const answer = await this.request('initialize', { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'oauthctl', version: '0.1.0' } }, accessToken);
    if (answer.response?.result === undefined) return answer;
    const version = (answer.response.result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof version !== 'string' || !MCP_SUPPORTED_VERSIONS.includes(version)) {
      throw new FlowError(
        `the MCP server answered protocol version ${JSON.stringify(version)}, which oauthctl does not speak`,
        `oauthctl speaks ${MCP_SUPPORTED_VERSIONS.join(', ')} (basic/lifecycle)`,
      );
    }
    this.protocolVersion = version;
    const session = answer.headers['mcp-session-id'];
    // basic/transports: visible ASCII only (0x21 to 0x7E).
    if (session !== undefined && /^[\x21-\x7e]+$/.test(session)) this.sessionId = session;
    return answer;
  }

  private post(message: object, accessToken: string | undefined) {
    const headers: Record<string, string> = { accept: MCP_ACCEPT, 'content-type': 'application/json' };
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`;
    return this.http.request(this.url, { method: 'POST', headers, body: JSON.stringify(message) });
  }
}
