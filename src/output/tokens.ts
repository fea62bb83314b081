import { decodeJwtUnverified, describeClaims, formatRelative } from '../oauth/jwt.js';
import { scopesNotGranted } from '../oauth/scope.js';
import type { TokenResponse } from '../oauth/token-request.js';
import { redactParams } from './redact.js';
import { escapeTerminal } from './escape.js';
import type { IO } from './io.js';
import { printJson, type Renderer } from './render.js';

/**
 * Shows a token response under the current step: each field (secrets redacted unless --show-secrets),
 * then the decoded header and claims of every token that is a JWT (not verified here).
 */
export function narrateTokenResponse(renderer: Renderer, tokens: TokenResponse, now: number = Date.now()): void {
  const shown = redactParams(tokens, renderer.showSecrets);
  for (const [name, value] of Object.entries(shown)) {
    let text = `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    if (name === 'expires_in' && typeof value === 'number') text += ` (expires ${formatRelative(value * 1000)})`;
    renderer.info(text);
  }
  for (const name of ['access_token', 'id_token', 'refresh_token']) {
    const token = tokens[name];
    if (typeof token !== 'string') continue;
    const jwt = decodeJwtUnverified(token);
    if (!jwt) continue;
    renderer.info(`${name} is a JWT (signature not verified here):`, 'bold');
    renderer.info(`  header: ${JSON.stringify(jwt.header)}`);
    for (const line of describeClaims(jwt.claims, now)) renderer.info(`  ${line}`);
  }
}

/**
 * Says on stderr which scopes asked for the server did not grant, after the token response: a dropped
 * `offline_access` means no refresh token, and servers such as oidc-provider grant it only with
 * prompt=consent (OpenID Connect Core 1.0 section 11).
 */
export function warnScopesNotGranted(renderer: Renderer, requested: readonly string[], tokens: TokenResponse): void {
  const missing = scopesNotGranted(requested, tokens.scope);
  if (missing.length === 0) return;
  const offline = missing.includes('offline_access') ? '; without offline_access there is no refresh token: some servers grant it only with --param prompt=consent' : '';
  renderer.warn(`scope asked for but not granted: ${missing.join(' ')} (the server granted ${JSON.stringify(tokens.scope)})${offline}`);
}

/**
 * The result of login, exchange and refresh on stdout: with --json exactly the token endpoint's object
 * as received; otherwise one `name=value` line per field (the tokens in full: they are the result).
 */
export function printTokenResponse(io: IO, tokens: TokenResponse, json: boolean | undefined): void {
  if (json) {
    printJson(io, tokens);
    return;
  }
  for (const [name, value] of Object.entries(tokens)) {
    io.stdout.write(`${escapeTerminal(`${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)}\n`);
  }
}
