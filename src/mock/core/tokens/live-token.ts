import { checkAccessToken } from './access-token.js';
import { knownResources } from './resources.js';
import type { Exchange } from '../http/http.js';
import type { AccessTokenClaims, RefreshTokenRecord } from '../store/store.js';

export type LiveToken = { kind: 'access_token'; claims: AccessTokenClaims } | { kind: 'refresh_token'; record: RefreshTokenRecord };

/** A live token of this server: a valid, unrevoked access token or an unused refresh token of a live family. */
export async function findLiveToken(ex: Exchange, token: string, hint: string | undefined): Promise<LiveToken | undefined> {
  const { store } = ex.state;
  const asRefresh = (): LiveToken | undefined => {
    const record = store.refreshTokens.get(token);
    if (!record || record.rotated || store.families.get(record.family)?.revoked !== false) return undefined;
    return { kind: 'refresh_token', record };
  };
  const asAccess = async (): Promise<LiveToken | undefined> => {
    // A resource server introspects the tokens of its own resource: any resource of this server (RFC 8707), aud said below.
    const check = await checkAccessToken(ex.state, token, knownResources(ex.state));
    return check.ok ? { kind: 'access_token', claims: check.claims } : undefined;
  };
  // RFC 7009 section 2.1 / RFC 7662 section 2.1: the hint orders the lookup, it does not limit it.
  if (hint === 'refresh_token') return asRefresh() ?? (await asAccess());
  return (await asAccess()) ?? asRefresh();
}
