import type { CachedLoginSelector } from '../../client/cache/cached-login.js';
import { serverOf } from '../../store/token-cache.js';
import type { FlowOptionsInput } from './flow-options.js';
import type { HttpClient } from '../../client/http/http.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';

/** The token a command was given, else the access token of the cached login the options name (refreshed when expired). */
export async function tokenOrCached(given: string | undefined, selector: CachedLoginSelector, http: HttpClient, io: IO, renderer: Renderer): Promise<string> {
  if (given !== undefined) return given === '-' ? (await readStdin(io)).trim() : given;
  const { accessTokenFromCache } = await import('../../client/cache/cached-login.js');
  const cached = await accessTokenFromCache(selector, { http, env: io.env });
  renderer.info(`the access token of the cached login of ${cached.entry.client_id}${cached.refreshed ? ' (refreshed first)' : ''}`);
  return cached.accessToken;
}

/**
 * For a command given neither a token nor a client (`introspect`): the cached login's server and client,
 * and its client secret when its method uses one; without that secret, the same failure as `refresh`.
 */
export async function withCachedClient<T extends FlowOptionsInput>(given: string | undefined, options: T, io: IO, doing: string): Promise<T> {
  if (given !== undefined || options.clientId !== undefined || options.profile !== undefined || io.env.OAUTHCTL_PROFILE) return options;
  const { findCachedLogin, clientSecretOf } = await import('../../client/cache/cached-login.js');
  const { entry } = await findCachedLogin(options, io.env);
  if (!entry) return options;
  const serverGiven = options.issuer !== undefined || options.authUrl !== undefined || options.tokenEndpoint !== undefined;
  const server =
    entry.issuer !== undefined
      ? { issuer: entry.issuer }
      : entry.token_endpoint.endsWith('/token')
        ? { authUrl: serverOf({ tokenEndpoint: entry.token_endpoint }) }
        : { tokenEndpoint: entry.token_endpoint };
  const clientSecret = await clientSecretOf(entry, options, io.env, doing);
  return { ...options, ...(serverGiven ? {} : server), clientId: entry.client_id, authMethod: options.authMethod ?? entry.auth_method, ...(clientSecret !== undefined ? { clientSecret } : {}) };
}

async function readStdin(io: IO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
