import { escapeHtml } from '../../../output/markup.js';
import type { AuthorizationDetail } from '../../../oauth/authorization-details.js';
import type { ServerResponse } from 'node:http';
import { respond, STYLESHEET_PATH } from '../http/http.js';

/**
 * The server-rendered pages: login, consent, error. No scripts at all, styles from /assets/mock.css,
 * a strict Content-Security-Policy, no framing (clickjacking, RFC 6749 section 10.13).
 */
export { STYLESHEET_PATH };

/** `formActionOrigin`: where the form's redirect may go (CSP form-action also covers redirects); `head`: more of the head (a meta refresh). */
export function sendPage(res: ServerResponse, status: number, title: string, body: string, formActionOrigin?: string, headers: Record<string, string> = {}, head = ''): void {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · oauthctl mock</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${head}</head>
<body>
<main class="card">
${body}
</main>
<p class="footer">oauthctl mock authorization server, for tests only</p>
</body>
</html>
`;
  const formAction = formActionOrigin ? `'self' ${formActionOrigin}` : "'self'";
  respond(
    res,
    status,
    {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(html),
      'Content-Security-Policy': `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      ...headers,
    },
    html,
  );
}

export interface LoginPageInput {
  interaction: string;
  csrfToken: string;
  clientName: string;
  username?: string;
  error?: string;
  /** prompt=select_account: the signed-in account, offered beside signing in with another. */
  signedInAs?: string;
}

export function loginPage(p: LoginPageInput): string {
  const describedBy = p.error ? ' aria-describedby="login-error" aria-invalid="true"' : '';
  const choose = p.signedInAs
    ? `<form method="post" action="login">
<input type="hidden" name="interaction" value="${escapeHtml(p.interaction)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(p.csrfToken)}">
<button type="submit" name="continue_as" value="current">Continue as ${escapeHtml(p.signedInAs)}</button>
</form>
<p>Or sign in with another account:</p>`
    : '';
  return `<h1>${p.signedInAs ? 'Choose an account' : 'Sign in'}</h1>
<p><strong>${escapeHtml(p.clientName)}</strong> wants to access your account.</p>
${p.error ? `<p id="login-error" class="error" role="alert">${escapeHtml(p.error)}</p>` : ''}
${choose}
<form method="post" action="login">
<input type="hidden" name="interaction" value="${escapeHtml(p.interaction)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(p.csrfToken)}">
<label for="username">Account name</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus value="${escapeHtml(p.username ?? '')}"${describedBy}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${describedBy}>
<button type="submit">Sign in</button>
</form>`;
}

export interface ConsentPageInput {
  interaction: string;
  csrfToken: string;
  clientName: string;
  clientId: string;
  username: string;
  scopes: { name: string; description: string }[];
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
}

export function consentPage(p: ConsentPageInput): string {
  const scopes = p.scopes.map((s) => `<li><span class="scope">${escapeHtml(s.name)}</span> ${escapeHtml(s.description)}</li>`);
  // RFC 9396 section 1: the user sees each authorization detail, its type and what it says (escaped).
  const details = (p.authorizationDetails ?? []).map((d) => `<li><span class="scope">${escapeHtml(d.type)}</span> <code>${escapeHtml(JSON.stringify(d))}</code></li>`);
  const items = [...scopes, ...details].join('\n');
  return `<h1>Allow access?</h1>
<p><strong>${escapeHtml(p.clientName)}</strong> <span class="muted">(${escapeHtml(p.clientId)})</span> asks to:</p>
<ul class="scopes" aria-label="Requested permissions">
${items}
</ul>
<p class="muted">Signed in as ${escapeHtml(p.username)}.</p>
<form method="post" action="consent">
<input type="hidden" name="interaction" value="${escapeHtml(p.interaction)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(p.csrfToken)}">
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`;
}

/** An error page; `list` adds a captioned list (the redirect URIs registered for the client, all escaped). */
export function errorPage(title: string, message: string, hint?: string, list?: { caption: string; items: readonly string[] }): string {
  return `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
${hint ? `<p>${escapeHtml(hint)}</p>` : ''}${list ? `\n<p>${escapeHtml(list.caption)}</p>\n<ul>${list.items.map((item) => `<li><code>${escapeHtml(item)}</code></li>`).join('')}</ul>` : ''}`;
}

export const STYLESHEET = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f4f5f7;--card:#fff;--accent:#0b57d0;--muted:#5f6368;--err:#b3261e}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--bg:#1b1c1f;--card:#26282c;--accent:#8ab4f8;--muted:#a8acb1;--err:#f2b8b5}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
.card{width:min(26rem,92vw);padding:2rem;background:var(--card);border-radius:12px;box-shadow:0 2px 12px rgb(0 0 0/.12)}
h1{margin:0 0 1rem;font-size:1.5rem}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.6rem .7rem;font:inherit;color:inherit;background:transparent;border:1px solid var(--muted);border-radius:6px}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:2px solid var(--accent);border-radius:6px;cursor:pointer}
@media (prefers-color-scheme:dark){button{color:#111}}
button.secondary{color:var(--accent);background:transparent}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.actions{display:flex;gap:.75rem}
.error{color:var(--err);font-weight:600}
.muted,.footer{color:var(--muted)}
.footer{font-size:.85rem}
.scopes{padding-left:1.2rem}
.scope{font-family:ui-monospace,monospace;font-weight:600;margin-right:.4rem}
.code{font-family:ui-monospace,monospace;font-size:1.6rem;font-weight:700;letter-spacing:.15em}
body.wide{display:block;padding:1.5rem}
.wide main{max-width:80rem;margin:0 auto}
.flow{margin:1.5rem 0;padding:1rem 1.25rem;background:var(--card);border-radius:12px;box-shadow:0 2px 12px rgb(0 0 0/.12)}
.flow h2{margin:0;font-size:1.2rem}
.flow h3{font-size:1rem;margin:1rem 0 .25rem}
.params{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}
.params dt{font-family:ui-monospace,monospace;font-weight:600}
.params dd{margin:0;overflow-wrap:anywhere;font-family:ui-monospace,monospace}
table{width:100%;border-collapse:collapse;margin-top:.75rem;background:var(--card)}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid var(--muted)}
.details{overflow-wrap:anywhere;font-family:ui-monospace,monospace;font-size:.9rem}
a{color:var(--accent)}
.diagram{overflow-x:auto;margin-top:.75rem}
.seq{display:block;color:var(--fg)}.seq a{color:inherit}.seq a:hover .seq-msg,.seq a:focus .seq-msg{color:var(--accent)}
.seq .seq-failed{color:var(--err)}.seq .seq-params,.seq .seq-host{fill:var(--muted)}
tr:target{outline:2px solid var(--accent)}
`;
