import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuth2Server } from 'oauth2-mock-server';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { memoryIO } from '../agent/helpers/io.js';
import { PROBES, RUN_FIRST } from '../../src/audit/probes/index.js';

// axa-group/oauth2-mock-server 8, in-process: a test double that issues a code to whatever
// redirect_uri it is given and a token to whoever asks. The audit must say so, probe by probe.
let server: OAuth2Server;
let issuer: string;
beforeAll(async () => {
  server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  issuer = server.issuer.url ?? '';
});
afterAll(async () => {
  await server.stop();
});

/** The probes that run first (RUN_FIRST); the others are tested by category in test/audit/depth/. */
const RUN_FIRST_ONLY = [
  '--skip',
  PROBES.filter((p) => !RUN_FIRST.includes(p.id))
    .map((p) => p.id)
    .join(','),
];

async function audit(...args: string[]) {
  const io = memoryIO();
  const code = await run(
    ['audit', '--issuer', issuer, '--scope', 'openid', '--redirect-uri', 'http://127.0.0.1/callback', '--username', 'u', '--password', 'p', '--json', ...RUN_FIRST_ONLY, ...args],
    io,
  );
  const report = JSON.parse(io.out()) as AuditReport;
  const failed = Object.fromEntries(report.probes.filter((p) => p.status === 'fail').map((p) => [p.id, p.detail]));
  return { code, report, failed };
}

const VARIANTS = 10;

describe('interop: audit against oauth2-mock-server (a deliberately permissive test double)', () => {
  it('public client: the failures are the ones the server really has', async () => {
    const { code, report, failed } = await audit('--client-id', 'pub', '--second-client-id', 'other', '--second-client-secret', 'other-secret');
    // It also hands client_credentials tokens to a client that sent its client_id alone.
    // Its end_session_endpoint redirects anywhere, and it has no sessions: every request is signed in.
    expect(Object.keys(failed)).toEqual([
      'code-redirect-binding',
      'code-client-binding',
      'pkce-required',
      'pkce-downgrade',
      'redirect-uri-exact',
      'open-redirector',
      'client-credentials-public',
      'post-logout-redirect-exact',
      'id-token-hint-other-user',
    ]);
    // Every request is signed in with no page: a code for prompt=none is what that standing "session"
    // gives, so the probe skips, saying so, as it does against serve-mock --auto-login.
    expect(report.probes.find((p) => p.id === 'prompt-none-login-required')).toMatchObject({ status: 'skip', detail: expect.stringMatching(/signs a browser in with no page at all/) });
    expect(failed['post-logout-redirect-exact']).toBe('the end_session_endpoint redirected to the unregistered post_logout_redirect_uri https://oauthctl-audit.invalid/post-logout');
    expect(failed['id-token-hint-other-user']).toMatch(/^a code was issued for the signed-in user although the id_token_hint names /);
    // No redirect_uri check at the token endpoint.
    expect(failed['code-redirect-binding']).toBe('a code issued for http://127.0.0.1/callback was redeemed with redirect_uri=http://127.0.0.1/callback/other');
    // No client check at the token endpoint.
    expect(failed['code-client-binding']).toBe('client other redeemed a code issued to pub');
    // PKCE is checked only when a code_verifier comes.
    expect(failed['pkce-required']).toBe('a public client got tokens without PKCE');
    expect(failed['pkce-downgrade']).toBe('tokens issued without code_verifier for a code requested with code_challenge');
    // /authorize redirects to any redirect_uri, with a code, and with an error.
    expect(failed['redirect-uri-exact']).toMatch(/^changed path \(http:\/\/127\.0\.0\.1\/callback-changed\) got a redirect with a code; /);
    expect(failed['redirect-uri-exact']?.match(/got a redirect with a code/g)).toHaveLength(VARIANTS);
    expect(failed['redirect-uri-exact']).toContain('added query parameter (http://127.0.0.1/callback?next=https%3A%2F%2Fevil.example) got a redirect with a code');
    expect(failed['redirect-uri-exact']).toMatch(/; not applied: other port \(a loopback redirect URI may use any port, RFC 8252 §7\.3\)$/);
    expect(failed['open-redirector']).toBe('redirected with error=unsupported_response_type to the unregistered https://oauthctl-audit.invalid/open-redirect');
    expect(code).toBe(1);
  });

  it('confidential client: a wrong secret, a reused code and a secret in the URL all get tokens', async () => {
    const { code, report, failed } = await audit('--client-id', 'conf', '--client-secret', 'conf-secret', '--no-pkce');
    expect(Object.keys(failed)).toEqual([
      'code-single-use',
      'code-redirect-binding',
      'pkce-downgrade',
      'redirect-uri-exact',
      'open-redirector',
      'client-secret-wrong',
      'token-post-only',
      'client-credentials-public',
      'post-logout-redirect-exact',
      'id-token-hint-other-user',
    ]);
    expect(failed['code-single-use']).toBe('the second use of the same code got tokens again');
    expect(failed['client-secret-wrong']).toBe('tokens issued with a wrong client secret');
    expect(failed['token-post-only']).toBe('GET refused (HTTP 404), but a POST with client_secret in the query string got tokens');
    // What it does right stays right: signed ID tokens with the nonce, S256 in its metadata, no-store.
    const status = Object.fromEntries(report.probes.map((p) => [p.id, p.status]));
    expect(status).toMatchObject({ flow: 'pass', state: 'pass', 'id-token': 'pass', metadata: 'pass', jwks: 'pass', 'token-no-store': 'pass', 'error-format': 'pass' });
    expect(code).toBe(1);
  });
});
