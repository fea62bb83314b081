import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { respond } from '../http/http.js';
import { escapeHtml } from '../../../output/markup.js';
import { redirectOrigin } from '../clients/redirect-uri.js';

/** The one script of the form post page: it submits the form. Its hash is the only script the page's CSP allows. */
const SUBMIT_SCRIPT = 'document.forms[0].submit();';
const SCRIPT_HASH = `'sha256-${createHash('sha256').update(SUBMIT_SCRIPT).digest('base64')}'`;

/**
 * OAuth 2.0 Form Post Response Mode section 2: the response's parameters as hidden fields of a form
 * that POSTs itself to the redirect URI. The CSP allows that one script by its hash and nothing else;
 * without script the user presses the button.
 */
export function sendFormPost(res: ServerResponse, redirectUri: string, params: Record<string, string | undefined>): void {
  const fields = Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>Submit this form to continue · oauthctl mock</title>
</head>
<body>
<form method="post" action="${escapeHtml(redirectUri)}">
${fields}
<noscript><p>Script is off: press the button to go back to the application.</p></noscript>
<button type="submit">Continue</button>
</form>
<script>${SUBMIT_SCRIPT}</script>
</body>
</html>
`;
  respond(
    res,
    200,
    {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(html),
      'Content-Security-Policy': `default-src 'none'; script-src ${SCRIPT_HASH}; form-action ${redirectOrigin(redirectUri)}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
    },
    html,
  );
}
