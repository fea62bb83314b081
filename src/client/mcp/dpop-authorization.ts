import type { DpopSession } from '../flows/dpop.js';
import type { McpAuthorization } from './transport.js';

/** The token of the moment and, for a DPoP-bound one, the key it is bound to. */
export interface McpTokenState {
  token?: string | undefined;
  dpop?: DpopSession | undefined;
}

/**
 * The authorization of every MCP request: a DPoP-bound token as `Authorization: DPoP` with a fresh proof
 * (RFC 9449 section 7.1) whose htm and htu are the request's, ath the token's hash and nonce the MCP
 * server's last DPoP-Nonce (section 9); any other token as Bearer (RFC 6750 section 2.1). Each answer's
 * DPoP-Nonce is kept for the next proof.
 */
export function mcpAuthorization(state: McpTokenState, url: string): McpAuthorization {
  return {
    headers: async (method, url): Promise<Record<string, string>> => {
      if (state.token === undefined) return {};
      if (state.dpop === undefined) return { authorization: `Bearer ${state.token}` };
      return { authorization: `DPoP ${state.token}`, dpop: await state.dpop.proof(method, url, state.token) };
    },
    answered: (_status, headers) => {
      state.dpop?.rememberNonce(url, { headers });
    },
  };
}
