// A client's authorization_details nested ten thousand deep (within the body limit), pushed to the mock: refused as
// invalid_authorization_details in one line (the JSON depth bound every reader here has), and the
// server goes on answering.
import { describe, expect, it } from 'vitest';
import { postForm, REDIRECT_URI, startMock } from '../mock/helpers.js';

describe('a deeply nested authorization_details at the mock', () => {
  it('is invalid_authorization_details at /par, and the next request is answered', async () => {
    const server = await startMock({ authorization_details_types: ['payment_initiation'] }, { autoLogin: 'alice' });
    const deep = `[{"type":"payment_initiation","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}]`;
    const form = {
      client_id: 'photo-web',
      client_secret: 'photo-web-secret',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'photo',
      state: 'state-0123456789abcdef',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const r = await postForm(`${server.authUrl}/par`, { ...form, authorization_details: deep });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_authorization_details', error_description: 'authorization_details is nested more than 100 levels deep (RFC 9396 section 3)' });
    const again = await postForm(`${server.authUrl}/par`, { ...form, authorization_details: '[{"type":"payment_initiation"}]' });
    expect(again.status).toBe(201);
  });
});
