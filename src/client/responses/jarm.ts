import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { FlowError } from '../../errors.js';
import { fapi2AlgRefusal } from '../../oauth/fapi2.js';
import { checkJarmClaims, isCompactJwe, jarmResponseParams } from '../../oauth/jarm.js';
import { decodeJwtUnverified, describeClaims } from '../../oauth/jwt.js';
import type { Renderer } from '../../output/render.js';
import type { FlowConfig } from '../flows/flow-config.js';
import type { HttpClient } from '../http/http.js';
import type { RedirectCapture } from '../listeners/listener.js';

const NOT_SENT = 'no token request was sent: nothing in an authorization response JWT is used before it is verified (JARM section 2.4)';

/** The keys response JWTs are checked with: --jwks-uri, else the server metadata's jwks_uri. */
export function jarmJwksUri(config: FlowConfig): string | undefined {
  return config.endpoints.jwks_uri ?? (typeof config.metadata?.jwks_uri === 'string' ? config.metadata.jwks_uri : undefined);
}

/**
 * The authorization response's parameters. With --response-mode *.jwt the redirect carries one
 * `response` JWT (JARM section 2.3): refused when encrypted, unsigned, signed by a key not in the
 * server's JWKS, or not issued by the issuer for this client, or expired; otherwise its claims are
 * the parameters (state, code or error, iss), narrated as a JWT like the tokens.
 */
export async function authorizationResponseParams(http: HttpClient, config: FlowConfig, capture: RedirectCapture, renderer: Renderer): Promise<Record<string, string>> {
  if (config.responseMode === undefined) return capture.params;
  const token = capture.params.response;
  if (token === undefined) {
    const error = capture.params.error !== undefined ? ` (it says error=${capture.params.error} outside a JWT, which is not trusted)` : '';
    throw new FlowError(`the redirect carries no response JWT although response_mode=${config.responseMode} was asked for${error}`, NOT_SENT);
  }
  if (isCompactJwe(token)) {
    throw new FlowError(
      'the response JWT is encrypted (a JWE): oauthctl does not decrypt authorization responses',
      'register the client without authorization_encrypted_response_alg, so that the server signs the response only (JARM section 3)',
    );
  }
  const decoded = decodeJwtUnverified(token);
  if (!decoded) throw new FlowError('the response parameter is not a JWT (three base64url parts of JSON)', NOT_SENT);
  renderer.step('Authorization response JWT (JARM)');
  renderer.info(`header: ${JSON.stringify(decoded.header)}`);
  for (const line of describeClaims(decoded.claims)) renderer.info(`  ${line}`);
  const alg = decodeProtectedHeader(token).alg;
  if (alg === undefined || alg === 'none') throw new FlowError('the response JWT is unsigned (alg none), which is never accepted', NOT_SENT);
  const refusal = config.fapi2 === true ? fapi2AlgRefusal('the response JWT', alg) : undefined;
  if (refusal !== undefined) throw new FlowError(refusal, NOT_SENT);
  const issuer = config.issuer ?? config.metadata?.issuer;
  const jwksUri = jarmJwksUri(config);
  if (issuer === undefined || jwksUri === undefined) throw new FlowError('the response JWT cannot be verified: the issuer or its jwks_uri is unknown', 'give --issuer (or --jwks-uri)');
  const { fetchJwks, checkSignature } = await import('./jwt-verify.js');
  const checks = [await checkSignature(token, await fetchJwks(http, jwksUri), jwksUri), ...checkJarmClaims(decoded.claims, { issuer, clientId: config.clientId, nowMs: Date.now() })];
  const failed = checks.filter((c) => c.status === 'fail');
  if (failed.length > 0) throw new FlowError(`the response JWT is refused: ${failed.map((c) => `${c.name}: ${c.detail}`).join('; ')}`, NOT_SENT);
  renderer.ok(`response JWT verified: ${checks.map((c) => c.detail).join('; ')}`);
  return jarmResponseParams(decoded.claims);
}
