import { FlowError } from '../errors.js';
import { authenticatedRequest } from '../client/flows/endpoint-request.js';
import type { FlowConfig } from '../client/flows/flow-config.js';
import { frontChannelUrl, pushAuthorizationRequest, requestObjectParams } from '../client/flows/pushed-authorization.js';
import type { HttpClient, HttpResponse } from '../client/http/http.js';
import { asksForDpopNonce } from '../client/flows/dpop.js';
import { CookieJar } from '../agent/headless/cookies.js';
import { navigate, StuckOnPageError, type NavigateOptions, type NavigationResult } from '../agent/headless/navigate.js';
import type { Credentials } from '../agent/headless/forms.js';
import { buildAuthorizationUrl } from '../oauth/authorization-request.js';
import type { AuthorizationServerMetadata, ExtraEndpoint } from '../oauth/discovery.js';
import { sameHtu } from '../oauth/dpop.js';
import { parseOAuthErrorBody } from '../oauth/errors.js';
import { createPkcePair, type CodeChallengeMethod, type PkcePair } from '../oauth/pkce.js';
import { generateState } from '../oauth/random.js';
import { clientAssertionClaims, signClientAssertion } from '../oauth/client-assertion.js';
import { buildTokenRequest, type ClientCredentials, type GrantParams, type TokenHttpRequest } from '../oauth/token-request.js';
import type { Renderer } from '../output/render.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';
import { describeExchange, type AuthorizeOutcome, type AuthorizeParams, type IssuedCode, type PushedRequest, type TokenExchange } from './exchanges.js';
import type { MetadataLookup } from './metadata-lookup.js';
import { jsonValue } from './json-body.js';

/** A tool the user lets the audit call, with its arguments (audit --call-tool NAME --tool-arguments JSON). */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What the audit knows about the server and the client(s) it may use. */
export interface AuditSetup {
  config: FlowConfig;
  http: HttpClient;
  /** The account: absent when none was given, and asked for by no login form (a server that logs in by itself). */
  credentials?: Credentials | undefined;
  /** A real access token for the protected resource (--token), where the audit cannot get one itself. */
  token?: string | undefined;
  /** The one tool of an MCP server the audit may call (--call-tool, --tool-arguments): a tool that needs more scope than the server's challenge names. */
  toolCall?: ToolCall | undefined;
  /** The plan the audit checks (--plan), when one: a probe may judge more strictly under it. */
  plan?: string | undefined;
  /** A second registered client, for the code-to-client binding probe. */
  secondClient?: ClientCredentials | undefined;
  /** The issuer, when known (--issuer or discovery at the authorization server). */
  issuer?: string | undefined;
  metadata?: AuthorizationServerMetadata | undefined;
  trace?: ((line: string) => void) | undefined;
  showSecrets?: boolean | undefined;
  maxSteps?: number | undefined;
  /** A protected resource that accepts the server's access tokens (--api-url): a revoked token must stop working there. */
  apiUrl?: string | undefined;
  /** What the metadata lookup saw at each location (for the metadata probe). */
  metadataLookup?: MetadataLookup | undefined;
  /** How authorization requests are walked: the built-in headless agent by default, or a browser (--browser-driver). */
  navigate?: ((authorizationUrl: string, options: NavigateOptions) => Promise<NavigationResult>) | undefined;
}

/**
 * The audit's access to the server: authorization requests through the headless agent that stop at
 * the first redirect off the authorization server (nothing is sent to the redirect URI or any other
 * host), and raw token requests whose status, headers and body the probes inspect.
 */
export class AuditContext {
  readonly config: FlowConfig;
  readonly http: HttpClient;
  readonly secondClient: ClientCredentials | undefined;
  readonly issuer: string | undefined;
  readonly metadata: AuthorizationServerMetadata | undefined;
  readonly exchanges: TokenExchange[] = [];
  /** The redirect URI as configured, the one the registered client expects. */
  readonly redirectUri: string;
  readonly trace: (line: string) => void;
  readonly apiUrl: string | undefined;
  readonly metadataLookup: MetadataLookup | undefined;
  readonly givenToken: string | undefined;
  readonly toolCall: ToolCall | undefined;
  readonly plan: string | undefined;
  private readonly jar = new CookieJar();
  /** Set once a walk reached the redirect URI: the user agent can get through this server's pages. */
  private reachedRedirectUri = false;

  constructor(private readonly setup: AuditSetup) {
    this.config = setup.config;
    this.http = setup.http;
    this.secondClient = setup.secondClient;
    this.issuer = setup.issuer;
    this.metadata = setup.metadata;
    this.redirectUri = setup.config.redirectUri;
    this.trace = setup.trace ?? (() => undefined);
    this.apiUrl = setup.apiUrl;
    this.metadataLookup = setup.metadataLookup;
    this.givenToken = setup.token;
    this.toolCall = setup.toolCall;
    this.plan = setup.plan;
  }

  /** An endpoint beyond authorize and token: its flag, else the metadata; undefined when neither names it. */
  endpoint(name: ExtraEndpoint): string | undefined {
    const value = this.config.endpoints[name] ?? this.metadata?.[name];
    return typeof value === 'string' ? value : undefined;
  }

  /** The authorization server's origin: the probes send requests there only. */
  get serverOrigin(): string {
    return new URL(this.config.authorizationEndpoint).origin;
  }

  get client(): ClientCredentials {
    return {
      clientId: this.config.clientId,
      clientSecret: this.config.clientSecret,
      authMethod: this.config.authMethod,
      signingKey: this.config.signingKey,
      assertionAudience: this.config.assertionAudience,
    };
  }

  /** The account the audit logs in with (the password grant probe offers it to the token endpoint); undefined when none was given. */
  get credentials(): Credentials | undefined {
    return this.setup.credentials;
  }

  get isPublicClient(): boolean {
    return this.config.authMethod === 'none';
  }

  /**
   * Whether the audit's authorization requests are pushed first (RFC 9126): --par, or the metadata's
   * require_pushed_authorization_requests (section 5). A probe's tampered request is then pushed as it is.
   */
  get pushesRequests(): boolean {
    return this.config.par === true || this.metadata?.require_pushed_authorization_requests === true;
  }

  /** PKCE by default for a public client or when the flow options ask for it (RFC 9700 section 2.1.1). */
  get usesPkce(): boolean {
    return this.config.pkce !== undefined || this.isPublicClient;
  }

  freshPkce(method: CodeChallengeMethod = this.config.pkce?.codeChallengeMethod ?? 'S256'): PkcePair {
    return createPkcePair(undefined, method);
  }

  authorizationUrl(params: AuthorizeParams = {}): string {
    const pkce = params.pkce === undefined ? undefined : params.pkce;
    const url = buildAuthorizationUrl({
      authorizationEndpoint: this.config.authorizationEndpoint,
      clientId: params.clientId ?? this.config.clientId,
      redirectUri: params.redirectUri ?? this.redirectUri,
      scopes: params.scopes ?? this.config.scopes,
      state: params.state ?? generateState(),
      codeChallenge: pkce?.codeChallenge,
      codeChallengeMethod: pkce?.codeChallengeMethod,
      extraParams: { ...this.config.extraParams, ...params.extraParams },
    });
    if (params.responseType !== undefined) url.searchParams.set('response_type', params.responseType);
    return url.href;
  }

  /**
   * Runs an authorization request through the headless agent up to the first redirect off the server;
   * when the audit pushes its requests, its parameters are pushed first and the agent gets the request_uri.
   */
  async authorize(params: AuthorizeParams = {}): Promise<AuthorizeOutcome> {
    return this.premiseHeld(await this.authorizeAsClient(params));
  }

  private async authorizeAsClient(params: AuthorizeParams): Promise<AuthorizeOutcome> {
    const front = await this.frontChannelUrl(params.rawUrl ?? this.authorizationUrl(params));
    return front.kind === 'push-refused' ? front : this.walkOutcome(front.url, params.redirectUri ?? this.redirectUri);
  }

  /**
   * A refusal that says nothing about what the probe tests skips the probe (a refused request is not a
   * failed probe): the client's authentication refused at the PAR endpoint, so the request was never
   * pushed; or a page the user agent cannot get past before any walk got through this server's pages,
   * so a refusal cannot be told from a login the agent could not do.
   */
  private premiseHeld(outcome: AuthorizeOutcome): AuthorizeOutcome {
    if (outcome.kind === 'push-refused' && outcome.clientAuthentication) {
      throw new ProbeSkip(`the PAR endpoint refused the client's authentication, so the request this probe builds on was never pushed: ${outcome.text}`);
    }
    if (outcome.kind === 'page' && outcome.stuck !== undefined && !this.reachedRedirectUri) {
      throw new ProbeSkip(
        `no redirect, but no request got through this server's pages yet, so a refusal cannot be told from a page the audit's user agent cannot use (${outcome.stuck}); run the flow probe too, or --browser-driver chromium`,
      );
    }
    return outcome;
  }

  /**
   * The URL the user agent is sent to for an authorization request, as the client sends it: in a signed
   * request object with --jar, pushed first when the audit pushes its requests; a refused push is an outcome.
   */
  async frontChannelUrl(url: string): Promise<{ kind: 'url'; url: string } | Extract<AuthorizeOutcome, { kind: 'push-refused' }>> {
    if (!this.pushesRequests) return { kind: 'url', url: await this.signedRequestUrl(url) };
    const pushed = await this.pushRequest(url);
    return pushed.kind === 'pushed' ? { kind: 'url', url: pushed.url } : pushed;
  }

  /**
   * With --jar, the client's authorization request travels as a signed request object (RFC 9101
   * section 5.1), a tampered one too; a request that already carries `request` or `request_uri`, or
   * names another client (signed with this client's key it would prove nothing), goes as it is.
   */
  private async signedRequestUrl(url: string): Promise<string> {
    const params = new URL(url).searchParams;
    if (!this.config.jar || params.has('request') || params.has('request_uri') || params.get('client_id') !== this.config.clientId) return url;
    return frontChannelUrl(this.config.authorizationEndpoint, this.config.clientId, await requestObjectParams(this.config, params, this.traceRenderer()));
  }

  /**
   * Pushes the parameters of an authorization URL, repeated ones as they are (RFC 9126 section 2.1),
   * through the client's own PAR request (client authentication included); a refusal is an outcome.
   */
  async pushRequest(authorizationUrl: string): Promise<PushedRequest | Extract<AuthorizeOutcome, { kind: 'push-refused' }>> {
    const params = new URL(await this.signedRequestUrl(authorizationUrl)).searchParams;
    try {
      const pushed = await pushAuthorizationRequest(this.http, this.config, params, this.traceRenderer());
      return { kind: 'pushed', url: this.pushedAuthorizationUrl(params.get('client_id') ?? this.config.clientId, pushed.request_uri), requestUri: pushed.request_uri, expiresIn: pushed.expires_in };
    } catch (err) {
      // RFC 6749 section 5.2: invalid_client (HTTP 401 when the client authenticated with a header).
      if (err instanceof FlowError) return { kind: 'push-refused', text: err.message, clientAuthentication: /\bHTTP 401\b|\binvalid_client\b/.test(err.message) };
      throw err;
    }
  }

  /** The front-channel request after a push: only client_id and request_uri (RFC 9126 section 4). */
  pushedAuthorizationUrl(clientId: string, requestUri: string): string {
    return frontChannelUrl(this.config.authorizationEndpoint, clientId, [['request_uri', requestUri]]);
  }

  /** The client's narration (of a push, a client assertion) as the audit's trace lines: seen with --verbose only. */
  private traceRenderer(): Renderer {
    const trace = (text: string) => this.trace(`audit: ${text}`);
    return { color: false, verbose: true, showSecrets: this.setup.showSecrets ?? false, step: trace, info: trace, line: trace, ok: trace, warn: trace, trace };
  }

  /** Walks any authorization URL (a pushed request's, RFC 9126 section 4) up to the first redirect off the server. */
  async walk(authorizationUrl: string, redirectUri: string = this.redirectUri): Promise<AuthorizeOutcome> {
    return this.premiseHeld(await this.walkOutcome(authorizationUrl, redirectUri));
  }

  private async walkOutcome(authorizationUrl: string, redirectUri: string): Promise<AuthorizeOutcome> {
    let result: NavigationResult;
    try {
      result = await this.navigateWithin(authorizationUrl, redirectUri, this.serverOrigin);
    } catch (err) {
      if (err instanceof StuckOnPageError) return { kind: 'page', ...err.page, stuck: err.message };
      throw err;
    }
    if (result.kind === 'page') return { kind: 'page', url: result.url, status: result.status, text: result.text };
    if (result.stoppedBy === 'stop-before') return { kind: 'elsewhere', url: result.url };
    this.reachedRedirectUri = true;
    const url = new URL(result.url);
    if (result.method === 'POST') return { kind: 'redirect', url: result.url, params: toRecord(new URLSearchParams(result.body ?? '')), via: 'form_post' };
    if (url.hash.length > 1 && !url.searchParams.has('code') && !url.searchParams.has('error')) {
      return { kind: 'redirect', url: result.url, params: toRecord(new URLSearchParams(url.hash.slice(1))), via: 'fragment' };
    }
    return { kind: 'redirect', url: result.url, params: toRecord(url.searchParams), via: 'query' };
  }

  /**
   * Walks a page of the server (a device verification page) as the user, with the audit's credentials
   * and cookies, approving what it is asked; stops at a page with nothing to do, never leaving the page's origin.
   */
  walkPage(url: string): Promise<NavigationResult> {
    return this.navigateWithin(url, 'http://oauthctl-audit.invalid/no-redirect', new URL(url).origin);
  }

  /** The audit's user agent (its credentials and cookies, approving consent) from `url`, never leaving `origin`. */
  private navigateWithin(url: string, redirectUri: string, origin: string): Promise<NavigationResult> {
    const walk = this.setup.navigate ?? navigate;
    return walk(url, {
      http: this.http,
      redirectUri,
      consent: 'approve',
      credentials: this.setup.credentials,
      jar: this.jar,
      maxSteps: this.setup.maxSteps,
      trace: this.trace,
      showSecrets: this.setup.showSecrets,
      stopBefore: (target) => target.origin !== origin,
    });
  }

  /** A fresh authorization code for the client (with PKCE when the client uses it). */
  async obtainCode(params: AuthorizeParams = {}): Promise<IssuedCode> {
    const pkce = params.pkce === undefined ? (this.usesPkce ? this.freshPkce() : undefined) : (params.pkce ?? undefined);
    let outcome: AuthorizeOutcome;
    try {
      outcome = await this.authorizeAsClient({ ...params, pkce: pkce ?? null });
    } catch (err) {
      if (err instanceof FlowError) throw new ProbeFailure(`no code: ${err.message}`);
      throw err;
    }
    if (outcome.kind === 'page' && outcome.stuck !== undefined) throw new ProbeFailure(`no code: ${outcome.stuck}`);
    if (outcome.kind === 'page') throw new ProbeFailure(`no code: the server stopped at ${outcome.url} with HTTP ${outcome.status}${outcome.text ? ` (${outcome.text})` : ''}`);
    if (outcome.kind === 'elsewhere') throw new ProbeFailure(`no code: the server sent the browser to ${outcome.url}`);
    if (outcome.kind === 'push-refused') throw new ProbeFailure(`no code: ${outcome.text}`);
    const code = outcome.params.code;
    if (!code) {
      const error = parseOAuthErrorBody(outcome.params);
      throw new ProbeFailure(`no code: the redirect carries ${error ? `error=${error.error}${error.error_description ? ` (${error.error_description})` : ''}` : 'neither code nor error'}`);
    }
    const issued: IssuedCode = { code, redirectUri: params.redirectUri ?? this.redirectUri, params: outcome.params };
    if (pkce && 'codeVerifier' in pkce) issued.pkce = pkce as PkcePair;
    return issued;
  }

  /**
   * One token request, exactly as given (client authentication from `client`), recorded. A client that
   * authenticates with a JWT gets a fresh assertion unless the probe gives its own; `headers` (a DPoP proof) are added.
   */
  async token(grant: GrantParams, client: ClientCredentials = this.client, extra: TokenRequestExtra = {}): Promise<TokenExchange> {
    const build = async (): Promise<TokenHttpRequest> =>
      extra.clientAssertion !== undefined
        ? buildTokenRequest(this.config.tokenEndpoint, client, grant, { clientAssertion: extra.clientAssertion })
        : await this.authenticatedRequest(this.config.tokenEndpoint, grant, client);
    return this.sendToTokenEndpoint(
      grant.grant_type,
      async () => {
        const req = await build();
        return { url: req.url, init: { method: req.method, headers: { ...req.headers, ...extra.headers }, body: req.body } };
      },
      extra.withoutDpop === true,
    );
  }

  /**
   * A request to the token endpoint shaped by the probe (another method, parameters in the URL, repeated
   * ones), recorded; to the token endpoint it carries the audit's DPoP proof as every token request does.
   */
  rawToken(grantType: string, url: string, init: RawRequest): Promise<TokenExchange> {
    return this.sendToTokenEndpoint(grantType, () => Promise.resolve({ url, init }), false);
  }

  /**
   * Sends a request built by `build`, recorded. With the audit's DPoP key (--dpop, --fapi2) a request to
   * the token endpoint carries a fresh proof of it with the server's latest nonce, unless the probe sent a
   * proof of its own or none on purpose (RFC 9449 section 5; FAPI 2.0 Security Profile section 5.3.2.1);
   * a use_dpop_nonce answer to the audit's proof is followed by one more request, built afresh (a new
   * client assertion), with the nonce the server gave (RFC 9449 section 8).
   */
  private async sendToTokenEndpoint(grantType: string, build: () => Promise<{ url: string; init: RawRequest }>, withoutDpop: boolean): Promise<TokenExchange> {
    const send = async () => {
      const { url, init } = await build();
      const session = this.config.dpop;
      const prove = session !== undefined && !withoutDpop && init.headers.dpop === undefined && sameHtu(this.config.tokenEndpoint, url);
      const headers = prove ? { ...init.headers, dpop: await session.proof(init.method, url) } : init.headers;
      const res = await this.http.request(url, { ...init, headers });
      session?.rememberNonce(url, res);
      return { res, proved: prove, exchange: this.record(grantType, url, init.method, res) };
    };
    const first = await send();
    return first.proved && asksForDpopNonce(first.res) ? (await send()).exchange : first.exchange;
  }

  private record(grantType: string, url: string, method: string, res: HttpResponse): TokenExchange {
    const exchange: TokenExchange = { grantType, method, status: res.status, headers: res.headers, body: res.body };
    // Not JSON: the error-format probe reports it.
    const json = jsonValue(res.body, `the answer of ${url}`);
    if (json !== undefined) {
      exchange.json = json;
      const error = parseOAuthErrorBody(json);
      if (error) exchange.error = error;
    }
    this.exchanges.push(exchange);
    this.trace(`audit: token request (${grantType}) -> ${describeExchange(exchange)}`);
    return exchange;
  }

  /**
   * A POST to an endpoint where the client authenticates, built but not sent, through the client's own
   * seam: a fresh client assertion for each (RFC 7523), mutual TLS by the HTTP client's certificate.
   */
  authenticatedRequest(endpoint: string, params: GrantParams | Record<string, string | undefined>, client: ClientCredentials = this.client): Promise<TokenHttpRequest> {
    return authenticatedRequest(client, endpoint, params, this.traceRenderer());
  }

  /** The token request that would redeem a code, built but not sent (client authentication included): for probes that reshape it. */
  redemptionRequest(issued: IssuedCode): Promise<TokenHttpRequest> {
    const grant: GrantParams = { grant_type: 'authorization_code', code: issued.code, redirect_uri: issued.redirectUri, code_verifier: issued.pkce?.codeVerifier };
    return this.authenticatedRequest(this.config.tokenEndpoint, grant);
  }

  /** Redeems an issued code the way the client normally would. */
  redeem(issued: IssuedCode, overrides: Partial<GrantParams> = {}, client?: ClientCredentials, extra: TokenRequestExtra = {}): Promise<TokenExchange> {
    const grant: GrantParams = { grant_type: 'authorization_code', code: issued.code, redirect_uri: issued.redirectUri, code_verifier: issued.pkce?.codeVerifier };
    for (const [k, v] of Object.entries(overrides)) grant[k] = v;
    return this.token(grant, client, extra);
  }

  /** A client assertion (RFC 7523) for the client, as the client would make it, with claims a probe may change. */
  async clientAssertion(client: ClientCredentials = this.client, change: Partial<ReturnType<typeof clientAssertionClaims>> = {}): Promise<string> {
    const audience = client.assertionAudience ?? this.config.tokenEndpoint;
    return signClientAssertion(client, { ...clientAssertionClaims(client.clientId, audience, Math.floor(Date.now() / 1000)), ...change });
  }
}

/** What a probe may change in a token request: its own client assertion, headers (its own DPoP proof), or no proof at all. */
export interface TokenRequestExtra {
  clientAssertion?: string;
  headers?: Record<string, string>;
  withoutDpop?: boolean;
}

interface RawRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function toRecord(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}
