import { headerOf, requestParams, responseParams, type TraceEntry, type TraceFile } from '../output/har-read.js';
import { constantTimeEqual } from '../oauth/pkce.js';
import { exchangeNumbers } from '../output/trace-diagram.js';

/** Something that looks wrong in a recorded flow (`oauthctl trace FILE --check`). */
export interface TraceFinding {
  id: 'state-missing' | 'state-mismatch' | 'no-pkce' | 'pkce-plain' | 'redirect-uri-changed' | 'token-in-url' | 'iss-missing' | 'iss-mismatch';
  rfc: string;
  /** The exchange (1-based, as the diagram numbers them). */
  exchange: number;
  detail: string;
}

const TOKEN_PARAMS = ['access_token', 'refresh_token', 'id_token'];

interface Numbered {
  e: TraceEntry;
  n: number;
}

/**
 * Reads a flow as recorded and lists what the client or the server did wrong. Each rule names the
 * section it comes from; the values compared are those in the file (state is never redacted).
 */
export function checkTrace(file: TraceFile): TraceFinding[] {
  // Numbered as the page and the diagram number them (a redirect recorded twice is one exchange).
  const numbers = exchangeNumbers(file);
  const all: Numbered[] = file.entries.map((e, i) => ({ e, n: numbers.get(i) ?? i + 1 }));
  const findings: TraceFinding[] = [];
  const issuerMetadata = all.map(({ e }) => (e.step === 'discovery' ? responseParams(e) : undefined)).find((p) => p?.has('issuer'));
  const issRequired = issuerMetadata?.get('authorization_response_iss_parameter_supported') === 'true';
  const issuer = issuerMetadata?.get('issuer');

  // The authorization requests: as the client sent the user agent off with them when it says so, else as a user agent sent them.
  const handoffs = all.some(({ e }) => e.handoff);
  for (const [i, { e, n }] of all.entries()) {
    if (e.step !== 'authorization' || (handoffs ? !e.handoff : e.actor === 'client')) continue;
    const request = authorizationParams(e, all.slice(0, i));
    if (!/\bcode\b/.test(request.get('response_type') ?? '')) continue;
    const state = request.get('state');
    if (state === null || state === '') {
      findings.push({
        id: 'state-missing',
        rfc: 'RFC 6749 section 10.12',
        exchange: n,
        detail: 'the authorization request carries no state, so a forged redirect cannot be told from the real one (CSRF)',
      });
    }
    if (!request.get('code_challenge')) {
      findings.push({ id: 'no-pkce', rfc: 'RFC 7636 section 4.3; RFC 9700 section 2.1.1', exchange: n, detail: 'the authorization request sends no code_challenge: a stolen code can be redeemed' });
    } else if ((request.get('code_challenge_method') || 'plain') === 'plain') {
      findings.push({
        id: 'pkce-plain',
        rfc: 'RFC 7636 section 4.2; RFC 9700 section 2.1.1',
        exchange: n,
        detail: 'code_challenge_method is plain (or left out): the challenge is the verifier itself; use S256',
      });
    }
    const callback = all.slice(i + 1).find(({ e: c }) => c.step === 'callback');
    if (callback) checkCallback(callback, state, { issRequired, issuer }, findings);
    const token = all.slice(i + 1).find(({ e: t }) => t.step === 'token' && requestParams(t).get('grant_type') === 'authorization_code');
    const sent = request.get('redirect_uri');
    const redeemed = token ? requestParams(token.e).get('redirect_uri') : null;
    if (token && sent !== null && redeemed !== sent) {
      findings.push({
        id: 'redirect-uri-changed',
        rfc: 'RFC 6749 section 4.1.3',
        exchange: token.n,
        detail: `the token request's redirect_uri (${redeemed ?? 'none'}) is not the one of the authorization request (${sent})`,
      });
    }
  }
  for (const { e, n } of all) {
    const inUrl = TOKEN_PARAMS.filter((p) => urlParams(e.url).has(p) || urlParams(headerOf(e.responseHeaders, 'location') ?? '', e.url).has(p));
    if (inUrl.length > 0) {
      findings.push({ id: 'token-in-url', rfc: 'RFC 6750 section 2.3; RFC 9700 section 2.1.2', exchange: n, detail: `${inUrl.join(', ')} in a URL, where logs, history and Referer headers keep it` });
    }
  }
  return findings;
}

/** The authorization request's parameters; with PAR (RFC 9126), those pushed before it. */
function authorizationParams(e: TraceEntry, before: readonly Numbered[]): URLSearchParams {
  const params = requestParams(e);
  const requestUri = params.get('request_uri');
  if (requestUri === null) return params;
  const pushed = [...before].reverse().find(({ e: p }) => p.step === 'par' && responseParams(p).get('request_uri') === requestUri);
  return pushed ? requestParams(pushed.e) : params;
}

function checkCallback({ e, n }: Numbered, state: string | null, metadata: { issRequired: boolean; issuer: string | undefined }, findings: TraceFinding[]): void {
  const response = requestParams(e);
  const returned = response.get('state');
  if (state !== null && state !== '' && (returned === null || !constantTimeEqual(returned, state))) {
    findings.push({ id: 'state-mismatch', rfc: 'RFC 6749 section 10.12 (and 4.1.2)', exchange: n, detail: `the redirect's state (${returned ?? 'none'}) is not the one sent (${state})` });
  }
  const iss = response.get('iss');
  if (metadata.issRequired && iss === null) {
    findings.push({
      id: 'iss-missing',
      rfc: 'RFC 9207 section 2.4',
      exchange: n,
      detail: 'the server announces authorization_response_iss_parameter_supported, but the authorization response has no iss',
    });
  } else if (iss !== null && metadata.issuer !== undefined && iss !== metadata.issuer) {
    findings.push({ id: 'iss-mismatch', rfc: 'RFC 9207 section 2.4', exchange: n, detail: `the authorization response's iss (${iss}) is not the issuer of the metadata (${metadata.issuer})` });
  }
}

function urlParams(url: string, base?: string): URLSearchParams {
  try {
    const u = new URL(url, base);
    return new URLSearchParams([...u.searchParams, ...new URLSearchParams(u.hash.slice(1))]);
  } catch {
    return new URLSearchParams();
  }
}
