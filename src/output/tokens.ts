import { decodeJwtUnverified, describeClaims, formatRelative } from '../oauth/jwt.js';
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
