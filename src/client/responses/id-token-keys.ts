import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { CliError } from '../../errors.js';
import type { JwtCheck } from '../../oauth/jwt-claims.js';
import type { HttpClient } from '../http/http.js';

/** A signature check, marked when the signature could not be checked at all (no keys, keys unreachable). */
export type SignatureCheck = JwtCheck & { unverifiable?: boolean };

/**
 * The ID token's signature against the keys at `jwksUri` (the flag, or the metadata of the issuer the
 * user named). alg none always fails (OpenID Connect Core section 3.1.3.7 step 6 allows it only when
 * the client asked for it at registration, which oauthctl never does). A signature that cannot be
 * checked fails too, unless the user accepted that (`acceptUnverified`, from --no-verify-id-token).
 */
export async function checkIdTokenSignature(http: HttpClient, idToken: string, jwksUri: string | undefined, options: { acceptUnverified: boolean }): Promise<SignatureCheck> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(idToken).alg;
  } catch {
    return { name: 'signature', status: 'fail', detail: 'the header cannot be decoded' };
  }
  if (alg === undefined || alg === 'none') return { name: 'signature', status: 'fail', detail: 'the ID token is unsigned (alg none), which is never accepted' };
  const cannot = (why: string): SignatureCheck =>
    options.acceptUnverified ? { name: 'signature', status: 'skip', detail: `not checked: ${why}` } : { name: 'signature', status: 'fail', detail: `cannot be checked: ${why}`, unverifiable: true };
  if (jwksUri === undefined) return cannot('no keys are known (no --jwks-uri, and no metadata of --issuer or --auth-url names a jwks_uri)');
  const { fetchJwks, checkSignature } = await import('./jwt-verify.js');
  let jwks;
  try {
    jwks = await fetchJwks(http, jwksUri);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return cannot(`the keys at ${jwksUri} could not be read (${err.message})`);
  }
  return checkSignature(idToken, jwks, jwksUri);
}
