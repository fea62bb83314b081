import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { FAKE_BROWSER, homeEnv } from '../../helpers/cli.js';
import { HAS_SCRIPT, runCliOnTerminal, terminalControls } from '../../helpers/terminal.js';

/**
 * A hostile authorization server on loopback: its registration endpoint answers a client_id (and a
 * client_secret, a client_name) holding OSC 52 (clipboard write), CSI 2J (clear screen), CR/LF and the
 * C1 CSI (U+009B); its API answers a body that does the same. Run on a real terminal (script), nothing
 * of it may reach the terminal raw: register, profile list, profile show and login --call.
 */
const HOSTILE = 'evil\x1b]52;c;SGVsbG8=\x07\x1b[2J\r\nforged: line\u009b31m\x7f';
const ESCAPED_ONE_LINE = 'evil\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\\x0d\\x0aforged: line\\x9b31m\\x7f';

let as: RecordingServer;
let api: Server;
let apiUrl: string;
let home: string;
beforeAll(async () => {
  as = await startRecordingServer();
  api = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`body ${HOSTILE}\n`));
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/data`;
});
afterAll(async () => {
  await as.close();
  await new Promise((resolve) => api.close(resolve));
});
beforeEach(() => {
  as.reset();
  home = mkdtempSync(join(tmpdir(), 'oauthctl-term-'));
  return () => rmSync(home, { recursive: true, force: true });
});

function serveHostileRegistration(): void {
  as.documents.set('/.well-known/oauth-authorization-server', {
    body: { issuer: as.url, authorization_endpoint: `${as.url}/authorize`, token_endpoint: `${as.url}/token`, registration_endpoint: `${as.url}/register` },
  });
  as.documents.set('/register', {
    status: 201,
    body: {
      client_id: HOSTILE,
      client_secret: HOSTILE,
      client_name: HOSTILE,
      token_endpoint_auth_method: 'client_secret_basic',
      registration_client_uri: `${as.url}/register/${encodeURIComponent(HOSTILE)}`,
    },
  });
}

describe.skipIf(!HAS_SCRIPT)('server-provided values on a terminal', () => {
  it('register, then profile list and profile show: the client_id escaped on one line', async () => {
    serveHostileRegistration();
    const env = homeEnv(home);
    const reg = await runCliOnTerminal(['register', '--issuer', as.url, '--save-profile', 'hostile'], { env });
    expect(reg.code).toBe(0);
    expect(as.to('/register')).toHaveLength(1);
    expect(terminalControls(reg.shown)).toEqual([]);
    expect(reg.shown).toContain(`client_id=${ESCAPED_ONE_LINE}`);
    expect(reg.shown).not.toMatch(/^forged: line/m);

    const list = await runCliOnTerminal(['profile', 'list'], { env });
    expect(list.code).toBe(0);
    expect(terminalControls(list.shown)).toEqual([]);
    expect(list.shown).toContain(ESCAPED_ONE_LINE);
    expect(list.shown).not.toMatch(/^forged: line/m);

    const show = await runCliOnTerminal(['profile', 'show', 'hostile', '--show-secrets'], { env });
    expect(show.code).toBe(0);
    expect(terminalControls(show.shown)).toEqual([]);
    expect(show.shown).toContain(`client_id: ${ESCAPED_ONE_LINE}`);
    expect(show.shown).toContain(`client_secret: ${ESCAPED_ONE_LINE}`);
    expect(show.shown).not.toMatch(/^forged: line/m);
  });

  it('login --call: the API body escaped as call URL escapes it', async () => {
    const r = await runCliOnTerminal(['login', '--auth-url', as.url, '--client-id', 'photo-cli', '--scope', 'photo', '--timeout', '20', '--no-cache', '--call', apiUrl], {
      env: { ...homeEnv(home), BROWSER: FAKE_BROWSER },
    });
    expect(r.code).toBe(0);
    expect(terminalControls(r.shown)).toEqual([]);
    expect(r.shown).toContain('body evil\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J');
    expect(r.shown).toContain('\\x9b31m\\x7f');
  });
});
