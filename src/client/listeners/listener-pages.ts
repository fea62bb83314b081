import { escapeHtml } from '../../output/markup.js';

/** The small pages the loopback listener shows the browser. Everything dynamic is HTML-escaped; no secrets. */

export type RedirectOutcome = { ok: true } | { ok: false; error: string; description?: string | undefined };

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function redirectPage(outcome: RedirectOutcome, postLogout = false): string {
  if (outcome.ok && postLogout) return page('oauthctl: signed out', '<h1>Signed out</h1><p>The server ended the session. You can close this window and return to the terminal.</p>');
  if (outcome.ok) {
    return page('oauthctl: authorization received', '<h1>Authorization received</h1><p>oauthctl got the redirect. You can close this window and return to the terminal.</p>');
  }
  const description = outcome.description ? `<p>${escapeHtml(outcome.description)}</p>` : '';
  return page('oauthctl: authorization failed', `<h1>Authorization failed</h1><p><code>${escapeHtml(outcome.error)}</code></p>${description}<p>See the terminal for details.</p>`);
}

/** Posts location.hash back to the listener (response_mode=fragment), then shows the listener's answer. */
export function fragmentRelayPage(path: string, header: string, nonce: string): string {
  const script = `(function(){var h=location.hash.slice(1);var m=document.getElementById('m');if(!h){m.textContent='This address waits for the authorization server\\u2019s redirect; this request carried no parameters.';return;}
history.replaceState(null,'',location.pathname);
fetch(${jsString(path)},{method:'POST',headers:{'content-type':'application/x-www-form-urlencoded',${jsString(header)}:'1'},body:h}).then(function(r){return r.text()}).then(function(t){document.open();document.write(t);document.close();},function(){m.textContent='Could not hand the response to oauthctl.';});})();`;
  return page('oauthctl', `<p id="m">Reading the response…</p><script nonce="${escapeHtml(nonce)}">${script}</script>`);
}

/** A JavaScript string literal that is also safe inside an HTML script element. */
function jsString(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}
