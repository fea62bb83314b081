import type { MockClient } from '../config/config.js';
import type { Exchange } from '../http/http.js';
import { escapeHtml } from '../../../output/markup.js';
import { sendPage } from '../pages/pages.js';
import { redirectOrigin, withParams } from '../clients/redirect-uri.js';
import type { SessionRecord } from '../store/store.js';

/** The clients of an ended session to load in iframes (Front-Channel Logout 1.0 section 2). */
export function frontchannelClients(ex: Exchange, session: SessionRecord): MockClient[] {
  return [...(session.clients ?? [])].map((id) => ex.state.config.clients.get(id)).filter((c): c is MockClient => c?.frontchannelLogoutUri !== undefined);
}

/**
 * Front-Channel Logout 1.0 section 3: a page that loads each client's frontchannel_logout_uri in an
 * iframe (with iss and sid when the client asks for them, section 2), framing only those origins
 * (CSP frame-src), then goes on to `next` by a meta refresh: no script.
 */
export function sendFrontChannelPage(ex: Exchange, session: SessionRecord, clients: MockClient[], next: string | undefined): void {
  const frames = clients.map((c) => {
    const uri = c.frontchannelLogoutSessionRequired ? withParams(c.frontchannelLogoutUri!, { iss: ex.state.issuer, sid: session.sid }) : c.frontchannelLogoutUri!;
    return `<iframe src="${escapeHtml(uri)}" title="Signing out of ${escapeHtml(c.clientName)}" width="0" height="0" hidden></iframe>`;
  });
  const origins = [...new Set(clients.map((c) => redirectOrigin(c.frontchannelLogoutUri!)))].join(' ');
  ex.log.outcome = `signed out; front-channel logout page for ${clients.map((c) => c.clientId).join(', ')}`;
  const body = `<h1>Signing out</h1>
<p>You are signed out here; the applications you used are being told.</p>
${frames.join('\n')}
${next ? `<p><a href="${escapeHtml(next)}">Continue</a></p>` : ''}`;
  const refresh = next ? `<meta http-equiv="refresh" content="1;url=${escapeHtml(next)}">\n` : '';
  sendPage(
    ex.res,
    200,
    'Signing out',
    body,
    undefined,
    { 'Content-Security-Policy': `default-src 'none'; style-src 'self'; frame-src ${origins}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'` },
    refresh,
  );
}
