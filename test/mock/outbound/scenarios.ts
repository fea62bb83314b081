// Run by test/mock/outbound-policy.test.ts inside a network namespace that has only loopback (see
// test/helpers/loopback-namespace.ts): each call the mock makes for a client, aimed at an internal
// address, and what the mock answered or logged. Prints one JSON object on stdout. Not a test file:
// nothing here decides; the test asserts.
import { generateKeyPair, SignJWT } from 'jose';
import { createMockServer, type MockConfigInput, type MockServer } from '../../../src/mock/index.js';
import { CIBA_GRANT } from '../../../src/oauth/ciba.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';

const CALLBACK = 'http://127.0.0.1:53682/callback';

async function withMock<T>(config: MockConfigInput, run: (server: MockServer) => Promise<T>, autoLogin?: string): Promise<T> {
  const server = await createMockServer(config, autoLogin !== undefined ? { autoLogin } : {});
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

/** Waits (bounded) until the request log holds an entry of `endpoint`. */
async function logged(server: MockServer, endpoint: string) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const entries = server.requests().filter((r) => r.endpoint === endpoint);
    if (entries.length > 0) return entries;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${endpoint} entry in the request log`);
}

/** GET /authorize with a client ID metadata document URL as client_id: the error page's status and text. */
async function authorizeWithDocument(server: MockServer, clientId: string) {
  const url = new URL(`${server.authUrl}/authorize`);
  url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, code_challenge: createPkcePair().codeChallenge, code_challenge_method: 'S256' }).toString();
  const started = Date.now();
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, text: await res.text(), ms: Date.now() - started };
}

const DOCUMENTS = [
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.1/client',
  'https://[fd00::1]/client',
  'https://[::ffff:10.0.0.1]/client',
  'https://[::ffff:a9fe:a9fe]/client',
  'https://metadata.test/client',
  'https://internal.test/client',
  'https://[ff02::1]/client',
  'https://0.0.0.0/client',
];

async function documents() {
  return withMock({ client_id_metadata_documents: { allow_http_loopback: true } }, async (server) => {
    const pages: Record<string, { status: number; text: string; ms: number }> = {};
    for (const url of DOCUMENTS) pages[url] = await authorizeWithDocument(server, url);
    return pages;
  });
}

/** The first private_key_jwt assertion of a client whose jwks_uri names the metadata address by a name. */
async function jwksUri() {
  const clientId = 'keyed';
  const config: MockConfigInput = {
    clients: [{ client_id: clientId, token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://metadata.test/jwks', grant_types: ['client_credentials'] }],
  };
  return withMock(config, async (server) => {
    const { privateKey } = await generateKeyPair('ES256');
    const assertion = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(server.issuer)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(privateKey);
    const res = await fetch(`${server.authUrl}/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  });
}

/** Dynamic registration naming an internal URL in each field the mock would call. */
async function registration() {
  const fields: Record<string, string> = {
    jwks_uri: 'https://169.254.169.254/jwks',
    backchannel_logout_uri: 'https://internal.test/logout',
    backchannel_client_notification_endpoint: 'https://[fd00::1]/notify',
    sector_identifier_uri: 'https://10.0.0.1/sector.json',
  };
  return withMock({}, async (server) => {
    const answers: Record<string, { status: number; body: Record<string, unknown> }> = {};
    for (const [field, value] of Object.entries(fields)) {
      const metadata = { redirect_uris: [CALLBACK], token_endpoint_auth_method: field === 'jwks_uri' ? 'private_key_jwt' : 'none', [field]: value };
      const res = await fetch(`${server.authUrl}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
      answers[field] = { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }
    return answers;
  });
}

/** A session's end, told by back-channel to a client whose backchannel_logout_uri is the metadata address. */
async function backchannelLogout() {
  const config: MockConfigInput = {
    clients: [{ client_id: 'photo-cli', redirect_uris: ['http://127.0.0.1/callback'], backchannel_logout_uri: 'https://169.254.169.254/logout' }],
  };
  return withMock(
    config,
    async (server) => {
      const url = new URL(`${server.authUrl}/authorize`);
      const pkce = createPkcePair();
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'photo-cli',
        redirect_uri: CALLBACK,
        state: 'state-1',
        scope: 'openid',
        code_challenge: pkce.codeChallenge,
        code_challenge_method: 'S256',
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      if (new URL(res.headers.get('location') ?? '', CALLBACK).searchParams.get('code') === null) throw new Error(`authorize gave no code: ${res.status} ${res.headers.get('location')}`);
      server.endSession();
      const entries = await logged(server, 'backchannel_logout');
      // A refused address is not retried: wait past the first retry delay to see no second attempt.
      await new Promise((r) => setTimeout(r, 600));
      return server
        .requests()
        .filter((r) => r.endpoint === 'backchannel_logout')
        .map((r) => ({ status: r.status, outcome: r.outcome, error: r.error, errorDescription: r.error_description, entries: entries.length }));
    },
    'alice',
  );
}

/** A CIBA ping to a client whose notification endpoint's name resolves to a private address. */
async function cibaPing(privateNetworks: boolean) {
  const config: MockConfigInput = {
    ...(privateNetworks && { outbound: { private_networks: true } }),
    clients: [
      {
        client_id: 'pinger',
        client_secret: 'pinger-secret',
        grant_types: [CIBA_GRANT],
        backchannel_token_delivery_mode: 'ping',
        backchannel_client_notification_endpoint: 'https://internal.test/notify',
      },
    ],
  };
  return withMock(config, async (server) => {
    const res = await fetch(`${server.authUrl}/backchannel`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('pinger:pinger-secret').toString('base64')}` },
      body: new URLSearchParams({ scope: 'openid', login_hint: 'alice', client_notification_token: 'tok-123' }),
    });
    const { auth_req_id: id } = (await res.json()) as { auth_req_id: string };
    server.decideCiba({ auth_req_id: id, action: 'approve' });
    const [entry] = await logged(server, 'ciba_ping');
    return { status: entry!.status, outcome: entry!.outcome, errorDescription: entry!.error_description };
  });
}

/** config outbound.private_networks: a private address goes on to the connection (which, here, cannot be made); link-local stays refused. */
async function lab() {
  return withMock({ outbound: { private_networks: true } }, async (server) => ({
    private: await authorizeWithDocument(server, 'https://10.0.0.1/client'),
    uniqueLocal: await authorizeWithDocument(server, 'https://[fd00::1]/client'),
    linkLocal: await authorizeWithDocument(server, 'https://169.254.169.254/client'),
    ping: await cibaPing(true),
  }));
}

const results = {
  documents: await documents(),
  jwksUri: await jwksUri(),
  registration: await registration(),
  backchannelLogout: await backchannelLogout(),
  cibaPing: await cibaPing(false),
  lab: await lab(),
};
process.stdout.write(`${JSON.stringify(results)}\n`);
