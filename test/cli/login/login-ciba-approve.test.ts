// login --ciba shows the auth_req_id, and against oauthctl's mock the admin call that approves it
// (issue 40 point 9): the built CLI against the FAPI 2.0 + CIBA fixture, the printed command run as
// printed; and against hostile servers on loopback that claim to be the mock.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/mock/core/config/config-text.js';
import { createMockServer, type MockConfigInput, type MockServer } from '../../../src/mock/index.js';
import { startCli, stopAllClis } from '../../helpers/live-cli.js';

let mock: MockServer | undefined;
let hostile: Server | undefined;
afterEach(async () => {
  await stopAllClis();
  await mock?.close();
  mock = undefined;
  if (hostile) await new Promise((resolve) => hostile!.close(resolve));
  hostile = undefined;
});

async function fixture(file: string): Promise<MockConfigInput> {
  const parsed = await parseConfigText(readFileSync(file, 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  return parsed.value as MockConfigInput;
}

const BANK = ['--client-id', 'bank-call-centre', '--auth-method', 'private_key_jwt', '--signing-key', 'fixtures/mock/photo-jwt.key.pem'];

/** Runs a printed shell command as a reader would paste it. */
function shell(command: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('login --ciba against the mock (fixtures/mock/fapi2-ciba.jsonc)', () => {
  it('prints the auth_req_id and the admin call; that call, run as printed, approves; the FAPI 2.0 login ends with a DPoP-bound token', async () => {
    mock = await createMockServer(await fixture('fixtures/mock/fapi2-ciba.jsonc'));
    const login = startCli(['login', '--ciba', '--fapi2', '--issuer', mock.issuer, ...BANK, '--login-hint', 'alice', '--no-cache', '--timeout', '60', '--json']);
    const [, id] = await login.waitForStderr(/auth_req_id: (\S+)\n/);
    const [, page, command] = await login.waitForStderr(/the mock: approve at (\S+) as the user, or: (curl .*)\n/);
    expect(page).toBe(`${mock.authUrl}/ciba`);
    expect(command).toBe(`curl -s ${mock.authUrl}/_mock/ciba -d '{"auth_req_id":"${id}","action":"approve"}'`);
    const approved = await shell(command!);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ auth_req_id: id, status: 'approved' });
    expect(await login.exited).toBe(0);
    expect(JSON.parse(login.stdout())).toMatchObject({ token_type: 'DPoP' });
  });

  it('a mock whose admin API is off does not announce it: the auth_req_id only', async () => {
    mock = await createMockServer(await fixture('fixtures/mock/fapi2-ciba.jsonc'), { admin: false });
    const login = startCli(['login', '--ciba', '--fapi2', '--issuer', mock.issuer, ...BANK, '--login-hint', 'alice', '--no-cache', '--timeout', '60']);
    const [, id] = await login.waitForStderr(/auth_req_id: (\S+)\n/);
    await login.waitForStderr(/Waiting for the user/);
    expect(login.stderr()).not.toContain('the mock:');
    mock.decideCiba({ auth_req_id: id!, action: 'approve' });
    expect(await login.exited).toBe(0);
  });
});

describe('login --ciba against servers claiming to be the mock', () => {
  /** A CIBA server whose metadata claims the mock's flows page and whose acknowledgement carries `authReqId`. */
  async function claimingMock(authReqId: string, claims = true): Promise<string> {
    hostile = createServer((req, res) => {
      const issuer = `http://127.0.0.1:${(hostile!.address() as AddressInfo).port}`;
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.end(
          JSON.stringify({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            backchannel_authentication_endpoint: `${issuer}/backchannel`,
            ...(claims && { service_documentation: `${issuer}/_mock/` }),
          }),
        );
      } else if (req.url === '/backchannel') res.end(JSON.stringify({ auth_req_id: authReqId, expires_in: 2, interval: 1 }));
      else res.writeHead(400).end(JSON.stringify({ error: 'access_denied' }));
    });
    await new Promise<void>((resolve) => hostile!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  }
  const login = (issuer: string) => startCli(['login', '--ciba', '--issuer', issuer, '--client-id', 'c', '--client-secret', 's', '--login-hint', 'alice', '--no-cache', '--timeout', '10']);

  it('an auth_req_id that could break out of the pasted command: shown escaped, no command printed', async () => {
    const issuer = await claimingMock(`x'; touch /tmp/pwned; echo '\u202e\x1b[2J`);
    const cli = login(issuer);
    await cli.exited;
    expect(cli.stderr()).toContain(`auth_req_id: x'; touch /tmp/pwned; echo '\\u202e\\x1b[2J`);
    expect(cli.stderr()).not.toContain('the mock:');
    expect(cli.stderr()).not.toContain('curl');
  });

  it('a server that does not say it is the mock: the auth_req_id, no command', async () => {
    const issuer = await claimingMock('abc-123', false);
    const cli = login(issuer);
    await cli.exited;
    expect(cli.stderr()).toContain('auth_req_id: abc-123');
    expect(cli.stderr()).not.toContain('the mock:');
  });
});
