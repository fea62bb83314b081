import { decodeJwtUnverified, type DecodedJwt } from '../oauth/jwt.js';
import type { AuditContext } from './context.js';
import { freshTokens } from './fresh-tokens.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';

/** An ID token from a fresh login (OpenID Connect Core section 3.1.3.3), decoded; a skip without openid. */
export async function freshIdToken(ctx: AuditContext): Promise<{ idToken: DecodedJwt; body: Record<string, unknown> }> {
  if (!ctx.config.scopes.includes('openid')) throw new ProbeSkip('openid is not in --scope');
  const { body } = await freshTokens(ctx);
  const decoded = typeof body.id_token === 'string' ? decodeJwtUnverified(body.id_token) : undefined;
  if (!decoded) throw new ProbeFailure('openid was in the scope, but the token response has no ID token (OIDC Core §3.1.3.3)');
  return { idToken: decoded, body };
}
