import type { CachedLoginSelector } from '../client/cached-login.js';
import type { HttpClient } from '../client/http.js';
import type { IO } from '../output/io.js';
import type { Renderer } from '../output/render.js';

/** The token a command was given, else the access token of the cached login the options name (refreshed when expired). */
export async function tokenOrCached(given: string | undefined, selector: CachedLoginSelector, http: HttpClient, io: IO, renderer: Renderer): Promise<string> {
  if (given !== undefined) return given === '-' ? (await readStdin(io)).trim() : given;
  const { accessTokenFromCache } = await import('../client/cached-login.js');
  const cached = await accessTokenFromCache(selector, { http, env: io.env });
  renderer.info(`the access token of the cached login of ${cached.entry.client_id}${cached.refreshed ? ' (refreshed first)' : ''}`);
  return cached.accessToken;
}

async function readStdin(io: IO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
