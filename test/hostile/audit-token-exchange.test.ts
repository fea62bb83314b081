// A token exchange that issues another type than asked fails the audit.
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program/main.js';
import type { AuditReport } from '../../src/audit/types.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import { DEFAULT_CONFIG } from '../../src/mock/core/config/config.js';
import { TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../../src/oauth/grant-types.js';
import { memoryIO } from '../helpers/io.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function probe(args: string[]): Promise<{ status: string; detail: string }> {
  const io = memoryIO();
  await run(['audit', ...args, '--only', 'token-exchange-type', '--json', '--username', 'alice', '--password', 'wonderland'], io);
  const report = JSON.parse(io.out()) as AuditReport;
  const found = report.probes.find((p) => p.id === 'token-exchange-type');
  if (!found) throw new Error(`no token-exchange-type in ${io.out()} ${io.err()}`);
  return found;
}

describe('audit: token-exchange-type (RFC 8693 section 2.2.1)', () => {
  it('passes against the mock for a client that may exchange tokens; skips for one that may not', async () => {
    const mock: MockServer = await createMockServer({
      clients: [
        ...DEFAULT_CONFIG.clients,
        { client_id: 'exchanger', client_secret: 'exchanger-secret', redirect_uris: ['http://127.0.0.1/callback'], grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT] },
      ],
      users: DEFAULT_CONFIG.users,
    });
    closers.push(() => mock.close());
    const ok = await probe(['--auth-url', mock.authUrl, '--client-id', 'exchanger', '--client-secret', 'exchanger-secret', '--scope', 'photo', '--redirect-uri', 'http://127.0.0.1/callback']);
    expect(ok).toMatchObject({ status: 'pass' });
    const refused = await probe(['--auth-url', mock.authUrl, '--client-id', 'photo-web', '--client-secret', 'photo-web-secret', '--scope', 'photo']);
    expect(refused.status).toBe('skip');
    expect(refused.detail).toMatch(/refused .*unauthorized_client/);
  });

  it('fails against a server that answers a refresh token type to a request for an access token', async () => {
    const as: RecordingServer = await startRecordingServer();
    closers.push(() => as.close());
    as.documents.set('/.well-known/oauth-authorization-server', {
      body: {
        issuer: as.url,
        authorization_endpoint: `${as.url}/authorize`,
        token_endpoint: `${as.url}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', TOKEN_EXCHANGE_GRANT],
      },
    });
    as.token = { body: { access_token: 'at', token_type: 'Bearer', expires_in: 60, issued_token_type: TOKEN_TYPES.refresh_token } };
    const found = await probe(['--issuer', as.url, '--client-id', 'c', '--client-secret', 's', '--scope', 'photo', '--redirect-uri', 'http://127.0.0.1/callback']);
    expect(found.status).toBe('fail');
    expect(found.detail).toContain(`issued_token_type ${TOKEN_TYPES.refresh_token} is not the requested_token_type ${TOKEN_TYPES.access_token}`);
  });
});
