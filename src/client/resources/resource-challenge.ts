import { explainOAuthError } from '../../oauth/errors.js';
import { parseWwwAuthenticate } from '../../oauth/www-authenticate.js';

/**
 * What a protected resource's refusal asks for, read from its WWW-Authenticate challenges (RFC 6750
 * section 3, RFC 9449 section 7.1): the error named, and one line saying what to do about it.
 */
export function explainChallenge(header: string | undefined, sentAs: 'Bearer' | 'DPoP', what: string): { detail: string; hint: string } {
  const challenges = parseWwwAuthenticate(header ?? '');
  const scheme = (name: string) => challenges.find((c) => c.scheme.toLowerCase() === name.toLowerCase())?.params;
  const bearer = scheme('Bearer');
  const dpop = scheme('DPoP');
  // Sent as Bearer, answered with a DPoP challenge only: the token is DPoP-bound (RFC 9449 section 7.1).
  if (sentAs === 'Bearer' && dpop && !bearer) {
    return { detail: described(dpop, 'DPoP'), hint: 'it wants a DPoP-bound token sent as Authorization: DPoP with a proof; give --dpop-key FILE, the key the token is bound to' };
  }
  const asked = (sentAs === 'DPoP' ? (dpop ?? bearer) : (bearer ?? dpop)) ?? undefined;
  if (!asked) return { detail: 'no WWW-Authenticate challenge', hint: `no valid token was recognised; ${what}` };
  const error = asked.error;
  if (error === 'insufficient_scope') {
    return { detail: described(asked, sentAs), hint: `the token lacks the scope the resource needs${asked.scope ? ` ("${asked.scope}")` : ''}; log in again asking for it` };
  }
  if (error === 'use_dpop_nonce') return { detail: described(asked, sentAs), hint: 'it wants a DPoP nonce it did not give in a DPoP-Nonce header (RFC 9449 section 9)' };
  if (error === 'invalid_dpop_proof') return { detail: described(asked, sentAs), hint: 'the DPoP proof was refused: the key is not the one the token is bound to, or the clock is off' };
  const meaning = error ? explainOAuthError(error) : undefined;
  return { detail: described(asked, sentAs), hint: meaning ? `${meaning}; ${what}` : what };
}

function described(params: Record<string, string>, scheme: string): string {
  if (!params.error) return `${scheme} challenge without an error code`;
  return `${params.error}${params.error_description ? `: ${params.error_description}` : ''}`;
}
