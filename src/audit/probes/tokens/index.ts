import type { AuditProbe } from '../../types.js';
import { refreshRotationProbe } from './refresh-rotation.js';
import { tokenNoStoreProbe } from './token-no-store.js';
import { accessTokenEntropyProbe } from './access-token-entropy.js';
import { accessTokenJwtClaimsProbe } from './access-token-jwt-claims.js';
import { accessTokenJwtTypProbe } from './access-token-jwt-typ.js';
import { accessTokenLifetimeProbe } from './access-token-lifetime.js';
import { codeEntropyProbe } from './code-entropy.js';
import { refreshScopeWideningProbe } from './refresh-scope-widening.js';
import { refreshTokenClientBindingProbe } from './refresh-token-client-binding.js';
import { refreshTokenEntropyProbe } from './refresh-token-entropy.js';
import { tokenTypeProbe } from './token-type.js';

/** Tokens: refresh rotation, caching, entropy of codes and tokens, lifetimes, types, what refresh tokens allow. */
export const TOKEN_PROBES: readonly AuditProbe[] = [
  refreshRotationProbe,
  tokenNoStoreProbe,
  codeEntropyProbe,
  accessTokenEntropyProbe,
  refreshTokenEntropyProbe,
  accessTokenLifetimeProbe,
  tokenTypeProbe,
  accessTokenJwtTypProbe,
  accessTokenJwtClaimsProbe,
  refreshScopeWideningProbe,
  refreshTokenClientBindingProbe,
];
