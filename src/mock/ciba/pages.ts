import { escapeHtml } from '../../output/markup.js';

/** One request waiting for the signed-in user, as the approval page shows it. */
export interface CibaPageEntry {
  pageId: string;
  clientName: string;
  clientId: string;
  scopes: string[];
  bindingMessage?: string;
}

/** The sign-in the approval page asks for first: the mock's users and passwords, as at /login. */
export function cibaSignInPage(csrfToken: string, error?: string, username = ''): string {
  return `<h1>Sign in to see your requests</h1>
<p>Applications can ask you to sign in from another device (OpenID Connect CIBA). Sign in to approve or refuse them.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="ciba">
<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">
<input type="hidden" name="action" value="signin">
<label for="username">Account name</label>
<input id="username" name="username" type="text" autocomplete="username" required autofocus value="${escapeHtml(username)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`;
}

/**
 * CIBA Core 1.0 section 8: each request waiting for the user, with the binding message the application
 * shows too (so that the user approves the request they started, and no other), and Approve / Refuse.
 */
export function cibaRequestsPage(username: string, csrfToken: string, entries: CibaPageEntry[]): string {
  if (entries.length === 0) {
    return `<h1>No requests</h1>
<p>Nothing is waiting for <strong>${escapeHtml(username)}</strong>. Reload this page after the application has asked.</p>`;
  }
  const items = entries
    .map(
      (e) => `<li>
<p><strong>${escapeHtml(e.clientName)}</strong> <span class="muted">(${escapeHtml(e.clientId)})</span> asks to sign you in${e.scopes.length ? ` for ${escapeHtml(e.scopes.join(' '))}` : ''}.</p>
${e.bindingMessage !== undefined ? `<p>It shows this message: <span class="code">${escapeHtml(e.bindingMessage)}</span></p>\n<p class="muted">Only approve if the application shows the same message.</p>` : '<p class="muted">It sent no message to compare: only approve if you have just asked this application to sign you in.</p>'}
<form method="post" action="ciba">
<input type="hidden" name="csrf_token" value="${escapeHtml(csrfToken)}">
<input type="hidden" name="request" value="${escapeHtml(e.pageId)}">
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Refuse</button>
</div>
</form>
</li>`,
    )
    .join('\n');
  return `<h1>Sign-in requests</h1>
<p>Signed in as <strong>${escapeHtml(username)}</strong>.</p>
<ul class="requests">
${items}
</ul>`;
}

export function cibaDonePage(approved: boolean): string {
  return approved
    ? `<h1>Approved</h1>\n<p>The application is signed in. You can close this page.</p>\n<p><a href="ciba">Other requests</a></p>`
    : `<h1>Refused</h1>\n<p>The application was not given access. You can close this page.</p>\n<p><a href="ciba">Other requests</a></p>`;
}
