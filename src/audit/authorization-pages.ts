import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

export interface FetchedPage {
  url: string;
  status: number;
  headers: Record<string, string>;
}

const MAX_HOPS = 6;

/**
 * The responses of the authorization endpoint to the client's own request, as a browser without a
 * session sees them: redirects within the server's origin followed (its login page, with the cookies
 * it set), none elsewhere. For the probes that judge the headers of these pages. The request goes as the
 * client sends it (ctx.frontChannelUrl): signed with --jar, pushed first under PAR (RFC 9126 section 4).
 */
export async function fetchAuthorizationPages(ctx: AuditContext): Promise<FetchedPage[]> {
  const pages: FetchedPage[] = [];
  const cookies = new Map<string, string>();
  const front = await ctx.frontChannelUrl(ctx.authorizationUrl({ pkce: ctx.usesPkce ? ctx.freshPkce() : null }));
  if (front.kind === 'push-refused') throw new ProbeSkip(`no authorization page to look at: ${front.text}`);
  let url = front.url;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await ctx.http.request(url, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
    pages.push({ url, status: res.status, headers: res.headers });
    for (const line of (res.headers['set-cookie'] ?? '').split('\n')) {
      const pair = /^\s*([^=;\s]+)=([^;]*)/.exec(line);
      if (pair?.[1] !== undefined) cookies.set(pair[1], pair[2] ?? '');
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.location : undefined;
    if (location === undefined) break;
    const next = new URL(location, url);
    if (next.origin !== ctx.serverOrigin) break;
    url = next.href;
  }
  return pages;
}

export function isHtml(page: FetchedPage): boolean {
  return /^text\/html\b/i.test(page.headers['content-type'] ?? '');
}
