import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import { usesClientAssertion, usesMutualTls, type ClientAuthMethod } from '../../oauth/token-request.js';
import { collect } from '../program/command.js';

/** The flow options of the secured flows: PAR, DPoP, JWT and mutual-TLS client authentication, JAR, resource indicators. */
export interface SecuredFlowOptionsInput {
  par?: boolean | undefined;
  dpop?: boolean | undefined;
  dpopKey?: string | undefined;
  signingKey?: string | undefined;
  signingKeyId?: string | undefined;
  clientAssertionAudience?: string | undefined;
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
  jar?: boolean | undefined;
  resource?: string[] | undefined;
}

/** Checked, before any file is read: what resolveSecuredSettings then loads. */
export interface SecuredFlowSettings {
  par: boolean;
  jar: boolean;
  resources: string[];
  dpop: boolean;
  dpopKeyFile?: string | undefined;
  signingKeyFile?: string | undefined;
  signingKeyId?: string | undefined;
  /** 'token-endpoint' (default), 'issuer' or a URL. */
  assertionAudience: string;
  tlsClientCertificate?: { certFile: string; keyFile: string } | undefined;
}

export function addSecuredFlowOptions(cmd: Command): Command {
  return cmd
    .option('--par', 'push the authorization request first (RFC 9126); the browser gets only client_id and request_uri')
    .option('--dpop', 'DPoP-bound tokens (RFC 9449) with a fresh P-256 key, cached with the tokens')
    .option('--dpop-key <FILE>', 'the DPoP key (P-256, PEM or JWK) instead of a fresh one (implies --dpop)')
    .option('--signing-key <FILE>', "the client's private key (PEM or JWK) for private_key_jwt and --jar")
    .option('--signing-key-id <KID>', "the kid of --signing-key (default: the JWK's own kid)")
    .option('--client-assertion-audience <AUD>', 'aud of client assertions: token-endpoint (default), issuer, or a URL')
    .option('--tls-cert <FILE>', 'client certificate (PEM) for mutual TLS (RFC 8705)')
    .option('--tls-key <FILE>', 'private key (PEM) of --tls-cert')
    .option('--jar', 'send the authorization request as a signed request object (RFC 9101), with --signing-key')
    .option('--resource <URI>', 'resource indicator (RFC 8707); repeatable', collect);
}

/** The rules between these options and the client authentication method; bad input is one line, exit 2. */
export function parseSecuredFlowOptions(raw: SecuredFlowOptionsInput, authMethod: ClientAuthMethod): SecuredFlowSettings {
  if (authMethod === 'private_key_jwt' && raw.signingKey === undefined) {
    throw new UsageError('--auth-method private_key_jwt needs --signing-key FILE', 'give the PEM or JWK file of the private key registered for the client');
  }
  if (raw.jar && raw.signingKey === undefined) throw new UsageError('--jar needs --signing-key FILE', "the request object is signed with the client's private key");
  if (raw.signingKeyId !== undefined && raw.signingKey === undefined) throw new UsageError('--signing-key-id needs --signing-key FILE');
  if ((raw.tlsCert === undefined) !== (raw.tlsKey === undefined)) {
    throw new UsageError(raw.tlsCert === undefined ? '--tls-key needs --tls-cert' : '--tls-cert needs --tls-key', 'give both the client certificate and its private key');
  }
  if (usesMutualTls(authMethod) && raw.tlsCert === undefined) {
    throw new UsageError(`--auth-method ${authMethod} needs --tls-cert FILE and --tls-key FILE`, 'the client authenticates with its TLS certificate (RFC 8705)');
  }
  const audience = raw.clientAssertionAudience ?? 'token-endpoint';
  if (raw.clientAssertionAudience !== undefined && !usesClientAssertion(authMethod)) {
    throw new UsageError(`--client-assertion-audience is for private_key_jwt and client_secret_jwt, not ${authMethod}`);
  }
  if (audience !== 'issuer' && audience !== 'token-endpoint') checkAbsoluteUri('--client-assertion-audience', audience);
  const resources = (raw.resource ?? []).map((r) => checkResource(r));
  const out: SecuredFlowSettings = { par: raw.par === true, jar: raw.jar === true, resources, dpop: raw.dpop === true || raw.dpopKey !== undefined, assertionAudience: audience };
  if (raw.dpopKey !== undefined) out.dpopKeyFile = raw.dpopKey;
  if (raw.signingKey !== undefined) out.signingKeyFile = raw.signingKey;
  if (raw.signingKeyId !== undefined) out.signingKeyId = raw.signingKeyId;
  if (raw.tlsCert !== undefined && raw.tlsKey !== undefined) out.tlsClientCertificate = { certFile: raw.tlsCert, keyFile: raw.tlsKey };
  return out;
}

/** RFC 8707 section 2: an absolute URI without a fragment. */
function checkResource(value: string): string {
  checkAbsoluteUri('--resource', value);
  if (value.includes('#')) throw new UsageError(`--resource must not contain a fragment (RFC 8707 section 2): ${JSON.stringify(value)}`);
  return value;
}

function checkAbsoluteUri(flag: string, value: string): void {
  try {
    new URL(value);
  } catch {
    throw new UsageError(`${flag} is not an absolute URI: ${JSON.stringify(value)}`, 'e.g. https://api.example.com/');
  }
}

/**
 * Loads the keys the settings name and fills in the config: the signing key, the DPoP key (fresh
 * unless --dpop-key), the client assertion's audience (after discovery, so the issuer is known),
 * PAR when the metadata requires it (RFC 9126 section 5), and the mutual-TLS endpoint aliases
 * (RFC 8705 section 5) when a client certificate is in use.
 */
export async function resolveSecuredSettings(settings: SecuredFlowSettings, config: FlowConfig): Promise<void> {
  const keys = await import('../../client/flows/keys.js');
  // --fapi2 read it already (fapi-flow-options.ts), before discovery.
  if (settings.signingKeyFile !== undefined && config.signingKey === undefined) config.signingKey = await keys.loadSigningKey(settings.signingKeyFile, settings.signingKeyId);
  if (settings.dpop) {
    const { DpopSession } = await import('../../client/flows/dpop.js');
    config.dpop = new DpopSession(settings.dpopKeyFile !== undefined ? await keys.loadDpopKey(settings.dpopKeyFile) : await keys.generateDpopKey());
  }
  config.par = settings.par || config.metadata?.require_pushed_authorization_requests === true;
  config.jar = settings.jar;
  config.resources = settings.resources;
  if (settings.tlsClientCertificate) config.tlsClientCertificate = settings.tlsClientCertificate;
  if (usesClientAssertion(config.authMethod)) config.assertionAudience = assertionAudienceOf(settings.assertionAudience, config);
  if (config.tlsClientCertificate) applyMtlsAliases(config);
}

/**
 * The aud of client assertions. By default the token endpoint URL, the value OpenID Connect Core section 9
 * says a server SHOULD accept and RFC 7523 section 3 allows (RFC 9126 section 2 makes a PAR endpoint accept
 * it too); most servers accept it, some accept nothing else. A server that wants only its issuer
 * identifier (as RFC 7523bis has it) gets it with --client-assertion-audience issuer.
 */
function assertionAudienceOf(choice: string, config: FlowConfig): string {
  if (choice === 'token-endpoint') return config.tokenEndpoint;
  if (choice !== 'issuer') return choice;
  const issuer = config.issuer ?? config.metadata?.issuer ?? config.authUrl;
  if (issuer === undefined) {
    throw new UsageError('the client assertion needs the issuer as its audience, and none is known', 'give --issuer or --auth-url, or --client-assertion-audience token-endpoint');
  }
  return issuer;
}

/** RFC 8705 section 5: with a client certificate, the endpoints of mtls_endpoint_aliases replace the plain ones (flags aside). */
function applyMtlsAliases(config: FlowConfig): void {
  const aliases = config.metadata?.mtls_endpoint_aliases;
  if (!aliases || typeof aliases !== 'object') return;
  const alias = (name: string) => {
    const value = (aliases as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const token = alias('token_endpoint');
  if (token !== undefined && config.tokenEndpoint === config.metadata?.token_endpoint) config.tokenEndpoint = token;
  for (const name of [
    'pushed_authorization_request_endpoint',
    'revocation_endpoint',
    'introspection_endpoint',
    'userinfo_endpoint',
    'device_authorization_endpoint',
    'backchannel_authentication_endpoint',
  ] as const) {
    const value = alias(name);
    if (value !== undefined && config.endpoints[name] === undefined) config.endpoints[name] = value;
  }
}
