import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { FlowError, UsageError } from '../../errors.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import { parseAuthorizationDetailsParam, type AuthorizationDetail } from '../../oauth/authorization-details.js';
import { FAPI2_AUTH_METHODS, fapi2MetadataGaps, fapi2SigningKey } from '../../oauth/fapi2.js';
import type { ClientSigningKey } from '../../oauth/token-request.js';
import { isJarmResponseMode, JARM_RESPONSE_MODES, type JarmResponseMode } from '../../oauth/jarm.js';

/** JARM, rich authorization requests and the FAPI 2.0 Security Profile's client rules, as flow options. */
export interface FapiFlowOptionsInput {
  responseMode?: string | undefined;
  authorizationDetails?: string | undefined;
  fapi2?: boolean | undefined;
}

export interface FapiFlowSettings {
  responseMode?: JarmResponseMode;
  authorizationDetails?: AuthorizationDetail[];
  fapi2: boolean;
}

export function addFapiFlowOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--response-mode <MODE>', 'the authorization response as a signed JWT (JARM), verified with the server keys before use').choices(JARM_RESPONSE_MODES))
    .option('--authorization-details <JSON>', 'rich authorization request (RFC 9396): a JSON array of objects with a type, or @FILE')
    .option('--fapi2', 'the FAPI 2.0 Security Profile client rules: PAR, PKCE S256, DPoP or mTLS-bound tokens, private_key_jwt or mTLS, iss checked');
}

/**
 * The options checked before any request (bad input: one line, exit 2). --fapi2 turns PAR and DPoP
 * on and asks for what the profile requires of the client (FAPI 2.0 Security Profile section 5.3.3).
 */
export function parseFapiFlowOptions(raw: FapiFlowOptionsInput & { authMethod?: string | undefined; pkce?: boolean | undefined; codeChallengeMethod?: string | undefined }): FapiFlowSettings {
  const out: FapiFlowSettings = { fapi2: raw.fapi2 === true };
  if (raw.responseMode !== undefined) {
    if (!isJarmResponseMode(raw.responseMode)) throw new UsageError(`--response-mode must be one of ${JARM_RESPONSE_MODES.join(', ')}, got ${JSON.stringify(raw.responseMode)}`);
    out.responseMode = raw.responseMode;
  }
  if (raw.authorizationDetails !== undefined) out.authorizationDetails = readAuthorizationDetails(raw.authorizationDetails);
  if (out.fapi2) {
    if (raw.pkce === false || raw.codeChallengeMethod === 'plain')
      throw new UsageError('--fapi2 requires PKCE with S256', 'drop --no-pkce and --code-challenge-method plain (FAPI 2.0 Security Profile section 5.3.3.2)');
    if (raw.authMethod === undefined || !FAPI2_AUTH_METHODS.includes(raw.authMethod)) {
      throw new UsageError(
        `--fapi2 requires --auth-method private_key_jwt, tls_client_auth or self_signed_tls_client_auth${raw.authMethod !== undefined ? `, not ${raw.authMethod}` : ''}`,
        'FAPI 2.0 Security Profile section 5.3.3.1: the client authenticates with a key (give --signing-key FILE) or a certificate (--tls-cert, --tls-key)',
      );
    }
  }
  return out;
}

function readAuthorizationDetails(value: string): AuthorizationDetail[] {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`--authorization-details: cannot read ${value.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const details = parseAuthorizationDetailsParam(text);
  if (typeof details === 'string') throw new UsageError(`--authorization-details: ${details}`, 'e.g. --authorization-details \'[{"type":"payment_initiation","actions":["initiate"]}]\'');
  return details;
}

/**
 * After discovery, before any other request: the settings into the config; with --fapi2 PAR and
 * DPoP on (unless a client certificate binds the tokens), and a server whose metadata cannot meet the
 * profile named in one line with what it lacks (exit 1), its signing algorithms among it (section 5.4.1)
 * unless the caller reports those itself. JARM needs the issuer and its keys.
 */
export async function resolveFapiSettings(settings: FapiFlowSettings, config: FlowConfig, check: { algorithms: boolean } = { algorithms: true }): Promise<void> {
  if (settings.responseMode !== undefined) config.responseMode = settings.responseMode;
  if (settings.authorizationDetails !== undefined) config.authorizationDetails = settings.authorizationDetails;
  const issuer = config.issuer ?? config.metadata?.issuer;
  if (settings.responseMode !== undefined && (issuer === undefined || (config.endpoints.jwks_uri ?? config.metadata?.jwks_uri) === undefined)) {
    throw new UsageError(
      `--response-mode ${settings.responseMode} needs the issuer and its keys to verify the response JWT`,
      'give --issuer (its metadata names jwks_uri), or --issuer with --jwks-uri',
    );
  }
  if (!settings.fapi2) return;
  config.fapi2 = true;
  if (config.metadata === undefined || issuer === undefined) throw new UsageError('--fapi2 needs the server metadata to check the profile against', 'give --issuer URL');
  const mtls = config.tlsClientCertificate !== undefined;
  // Section 5.4.1's algorithms: what the client signs and verifies (the audit reports them instead, check.algorithms false).
  const algorithms = check.algorithms
    ? {
        // A fresh DPoP key, or --dpop-key, is P-256: ES256 (src/client/flows/keys.ts).
        dpopAlg: config.dpop?.key.alg ?? 'ES256',
        assertionAlg: config.authMethod === 'private_key_jwt' ? config.signingKey?.alg : undefined,
        requestObjectAlg: config.jar ? config.signingKey?.alg : undefined,
        idTokens: config.scopes.includes('openid'),
        jarm: config.responseMode !== undefined,
      }
    : {};
  const gaps = fapi2MetadataGaps(config.metadata, { mtls, ...algorithms });
  if (gaps.length > 0)
    throw new FlowError(`${issuer} cannot meet the FAPI 2.0 Security Profile: its metadata lacks ${gaps.join(', ')}`, 'no authorization request was sent; drop --fapi2 to log in without the profile');
  config.par = true;
  if (!mtls && config.dpop === undefined) {
    const { DpopSession } = await import('../../client/flows/dpop.js');
    const { generateDpopKey } = await import('../../client/flows/keys.js');
    config.dpop = new DpopSession(await generateDpopKey());
  }
  // FAPI 2.0 Security Profile section 5.3.2.1 (RFC 7523 as updated): the assertion's audience is the issuer.
  if (config.authMethod === 'private_key_jwt') config.assertionAudience = issuer;
}

/**
 * --fapi2 with --signing-key: the key read before any request, so that one the profile does not allow
 * stops the command (exit 2) before discovery; an RSA key signs PS256 (FAPI 2.0 Security Profile
 * section 5.4.1), client assertions and request objects alike.
 */
export async function loadFapi2SigningKey(file: string, keyId: string | undefined): Promise<ClientSigningKey> {
  const { loadSigningKey } = await import('../../client/flows/keys.js');
  const key = fapi2SigningKey(await loadSigningKey(file, keyId));
  if (typeof key === 'string')
    throw new UsageError(`--fapi2: --signing-key ${JSON.stringify(file)}: ${key}`, 'use a P-256 (ES256), RSA of 2048 bits or more (PS256) or Ed25519 (EdDSA) key; a JWK may name its alg');
  return key;
}
