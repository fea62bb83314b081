import { escapeHtml } from '../../../output/markup.js';

/** RFC 8628 section 3.3: the page where the user types the code their device shows. */
export function userCodeEntryPage(): string {
  return `<h1>Connect a device</h1>
<p>Enter the code shown on your device.</p>
<form method="get" action="/device">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus placeholder="XXXX-XXXX">
<button type="submit">Next</button>
</form>`;
}

export interface DeviceConfirmInput {
  userCode: string;
  csrfToken: string;
  clientName: string;
  clientId: string;
}

/**
 * RFC 8628 section 5.4: the user confirms the code before anything else, so that a link with the code
 * filled in (verification_uri_complete) sent by someone else is not approved by one click.
 */
export function deviceConfirmPage(p: DeviceConfirmInput): string {
  return `<h1>Connect a device?</h1>
<p><strong>${escapeHtml(p.clientName)}</strong> <span class="muted">(${escapeHtml(p.clientId)})</span> asks to sign in on a device showing this code:</p>
<p class="code">${escapeHtml(p.userCode)}</p>
<p class="muted">Only continue if your device shows the same code.</p>
<form method="post" action="/device">
<input type="hidden" name="user_code" value="${escapeHtml(p.userCode)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(p.csrfToken)}">
<div class="actions">
<button type="submit" name="decision" value="allow">Continue</button>
<button type="submit" name="decision" value="deny" class="secondary">Cancel</button>
</div>
</form>`;
}

export function deviceDonePage(approved: boolean, userCode: string): string {
  return approved
    ? `<h1>Device connected</h1>
<p>The device showing <span class="code">${escapeHtml(userCode)}</span> is signed in. You can close this page and go back to it.</p>`
    : `<h1>Access denied</h1>
<p>The device showing <span class="code">${escapeHtml(userCode)}</span> was not given access. You can close this page.</p>`;
}
