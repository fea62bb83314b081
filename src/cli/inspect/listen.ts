import type { Command } from 'commander';
import { escapeTerminal } from '../../output/escape.js';
import { FlowError, UsageError } from '../../errors.js';
import type { RedirectCapture } from '../../client/listeners/listener.js';
import { decodeJwtUnverified, describeClaims } from '../../oauth/jwt.js';
import { explainOAuthError } from '../../oauth/errors.js';
import { createRenderer, printJson } from '../../output/render.js';
import { addCommonOptions, parseHttpUrl, parseInteger, setExitCode, type CommonOptions } from '../program/command.js';
import type { IO } from '../../output/io.js';

export interface ListenOptions extends CommonOptions {
  port?: number;
  path?: string;
  host?: string;
  timeout?: number;
  json?: boolean;
  /** --backchannel: receive a back-channel logout token instead of a redirect (listen-backchannel.ts). */
  backchannel?: boolean;
  issuer?: string;
  clientId?: string;
  httpTimeout?: number;
}

export const DEFAULT_LISTEN_TIMEOUT_SECONDS = 300;

/** What a parameter of an authorization response means (RFC 6749 sections 4.1.2, 4.2.2; RFC 9207; OIDC). */
const PARAMETER_MEANINGS: Readonly<Record<string, string>> = {
  code: 'the authorization code: single use and short-lived; exchange it with `oauthctl exchange --code ...` (same redirect URI and code verifier)',
  state: 'echo of the state the client sent: the client must compare it with its own before using anything else (CSRF, RFC 6749 section 10.12)',
  iss: 'the issuer that sent this response (RFC 9207): the client must compare it with the server it started with',
  error: 'the authorization failed (RFC 6749 section 4.1.2.1)',
  error_description: "the server's explanation, for developers",
  error_uri: 'a page about the error',
  access_token: 'an access token in the redirect: the implicit flow, which RFC 9700 section 2.1.2 says not to use; prefer the code flow with PKCE',
  token_type: "the access token's type (implicit flow)",
  expires_in: "the access token's lifetime in seconds (implicit flow)",
  scope: 'the scope granted, when it differs from the one asked for',
  id_token: 'an OpenID Connect ID token (claims below; not verified here, use `oauthctl decode --verify`)',
  session_state: 'OpenID Connect session management state',
};

const VIA: Readonly<Record<RedirectCapture['via'], string>> = {
  query: 'in the query string (response_mode=query, the default of the code flow)',
  fragment: "in the URL fragment (response_mode=fragment), posted back by the listener's page",
  form_post: 'in a form POST body (response_mode=form_post)',
};

/** Runs only the loopback listener and reports the first redirect, exchanging nothing. */
export async function runListen(options: ListenOptions, io: IO): Promise<number> {
  if (options.backchannel) return (await import('./listen-backchannel.js')).runBackchannelListen(options, io);
  if (options.issuer !== undefined || options.clientId !== undefined) throw new UsageError('--issuer and --client-id are for --backchannel', 'add --backchannel');
  const path = options.path ?? '/callback';
  if (!path.startsWith('/')) throw new UsageError(`--path must start with /, got ${JSON.stringify(path)}`);
  const host = options.host ?? '127.0.0.1';
  const { startRedirectListener } = await import('../../client/listeners/listener.js');
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const listener = await startRedirectListener({ redirectUri: `http://${bracketed}:${options.port ?? 0}${path}`, acceptAnyParameters: true }).catch((err: unknown) => {
    // The listener speaks of --redirect-uri (login's option); here the port is --port.
    if (err instanceof UsageError && /already in use/.test(err.message)) {
      throw new UsageError(`port ${options.port ?? 0} on ${host} is already in use`, 'choose another --port, or leave it out for a free one');
    }
    throw err;
  });
  const renderer = createRenderer(io, options);
  const seconds = options.timeout ?? DEFAULT_LISTEN_TIMEOUT_SECONDS;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new FlowError(`nothing arrived at ${listener.redirectUri} within ${seconds} s`, 'raise --timeout, and check the redirect URI registered at the server')),
    seconds * 1000,
  );
  try {
    renderer.step(`Listening on ${listener.redirectUri}`);
    renderer.info('Use it as the redirect URI; the first request to it is shown here, and nothing is exchanged (Ctrl-C to stop).');
    const capture = await listener.waitForRedirect(controller.signal);
    if (options.json) printJson(io, capture);
    else io.stdout.write(escapeTerminal(explainCapture(capture).join('\n')) + '\n');
    return 0;
  } finally {
    clearTimeout(timer);
    await listener.close();
  }
}

/** The capture in words: how the parameters came, each with its meaning, errors explained. */
export function explainCapture(capture: RedirectCapture, now: number = Date.now()): string[] {
  const lines = [`Redirect received: ${capture.method} ${capture.url}`, `Parameters arrived ${VIA[capture.via]}:`];
  const params = capture.params;
  if (Object.keys(params).length === 0) lines.push('  (none)');
  for (const [name, value] of Object.entries(params)) {
    lines.push(`  ${name} = ${value}`);
    const meaning = PARAMETER_MEANINGS[name];
    if (meaning) lines.push(`      ${meaning}`);
    if (name === 'error') {
      const explained = explainOAuthError(value);
      lines.push(`      ${value}: ${explained ?? 'not an error code of RFC 6749; see error_description'}`);
    }
    if (name === 'id_token' || name === 'access_token') {
      const jwt = decodeJwtUnverified(value);
      if (jwt) {
        lines.push(`      header: ${JSON.stringify(jwt.header)}`);
        for (const line of describeClaims(jwt.claims, now)) lines.push(`      ${line}`);
      }
    }
  }
  if (params.error !== undefined) lines.push(`Outcome: the authorization failed with ${params.error}.`);
  else if (params.code !== undefined) lines.push('Outcome: an authorization code arrived; nothing was exchanged.');
  else if (params.access_token !== undefined || params.id_token !== undefined) lines.push('Outcome: tokens arrived directly in the redirect (implicit or hybrid flow).');
  else lines.push('Outcome: neither a code nor an error: this is not an OAuth authorization response.');
  return lines;
}

function parseHost(value: string): string {
  const normal = value.replace(/^\[|\]$/g, '').toLowerCase();
  if (!['127.0.0.1', '::1', 'localhost'].includes(normal)) {
    throw new UsageError(`--host must be a loopback address (127.0.0.1, ::1 or localhost), got ${JSON.stringify(value)}`, 'the listener never binds other interfaces (RFC 8252 section 8.3)');
  }
  return normal;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('listen')
    .description('Run only the loopback redirect listener and print what the first redirect carries (query, fragment or form_post), explained; exchanges nothing.')
    .option('--port <P>', 'port to listen on (default: a free one, printed)', parseInteger('--port', 0, 65535))
    .option('--path <PATH>', 'redirect path (default /callback)')
    .option('--host <HOST>', 'loopback address: 127.0.0.1 (default), ::1 or localhost', parseHost)
    .option('--timeout <SECONDS>', `give up after this many seconds (default ${DEFAULT_LISTEN_TIMEOUT_SECONDS})`, parseInteger('--timeout', 1, 86_400))
    .option('--json', 'print the capture: {"via","params","url","method"}; with --backchannel {"valid","claims","problems"}')
    .option('--backchannel', 'receive one back-channel logout token (POST, OpenID Connect Back-Channel Logout 1.0) instead, and validate it (default --path /backchannel-logout)')
    .option('--issuer <URL>', 'with --backchannel: the issuer whose keys sign the logout token', parseHttpUrl('--issuer'))
    .option('--client-id <ID>', 'with --backchannel: the client the token must be for (its aud)');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl listen --port 8765
  $ oauthctl listen --port 8765 --path /oauth/callback --json
  $ oauthctl listen --backchannel --issuer http://127.0.0.1:9000 --client-id photo-web --timeout 1   # exits 1: no logout token came
Then send the authorization server's redirect to http://127.0.0.1:8765/callback.`,
    )
    .action(async (options: ListenOptions, command: Command) => {
      setExitCode(command, await runListen(options, io));
    });
}
