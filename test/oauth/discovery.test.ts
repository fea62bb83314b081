import { describe, expect, it } from 'vitest';
import { metadataLocations, MetadataError, pkceAdvice, supportedAuthMethods, validateMetadata } from '../../src/oauth/discovery.js';

describe('metadataLocations', () => {
  it('RFC 8414 section 3.1 inserts the well-known path before the issuer path; OIDC inserted, then appended (the MCP authorization order)', () => {
    expect(metadataLocations('https://h.example/tenant/1')).toEqual([
      { kind: 'oauth-authorization-server', url: 'https://h.example/.well-known/oauth-authorization-server/tenant/1' },
      { kind: 'openid-configuration', url: 'https://h.example/.well-known/openid-configuration/tenant/1' },
      { kind: 'openid-configuration', url: 'https://h.example/tenant/1/.well-known/openid-configuration' },
    ]);
  });
  it('handles an issuer without a path or with a trailing slash', () => {
    expect(metadataLocations('https://h.example').map((l) => l.url)).toEqual(['https://h.example/.well-known/oauth-authorization-server', 'https://h.example/.well-known/openid-configuration']);
    expect(metadataLocations('http://127.0.0.1:9000/').map((l) => l.url)).toEqual([
      'http://127.0.0.1:9000/.well-known/oauth-authorization-server',
      'http://127.0.0.1:9000/.well-known/openid-configuration',
    ]);
  });
});

describe('validateMetadata', () => {
  const issuer = 'https://as.example';
  it('accepts a document for the issuer asked for', () => {
    const m = validateMetadata({ issuer, authorization_endpoint: `${issuer}/a`, token_endpoint: `${issuer}/t`, other: 1 }, issuer);
    expect(m.token_endpoint).toBe(`${issuer}/t`);
    expect(m.other).toBe(1);
  });
  it('refuses another issuer, byte for byte (RFC 8414 section 3.3)', () => {
    expect(() => validateMetadata({ issuer: `${issuer}/` }, issuer)).toThrow(MetadataError);
    expect(() => validateMetadata({ issuer: 'https://evil.example' }, issuer)).toThrow(/is not "https:\/\/as.example"/);
  });
  it('refuses non-objects, a missing issuer and non-http endpoints', () => {
    expect(() => validateMetadata([], issuer)).toThrow(/not a JSON object/);
    expect(() => validateMetadata({}, issuer)).toThrow(/no issuer/);
    expect(() => validateMetadata({ issuer, token_endpoint: 'javascript:alert(1)' }, issuer)).toThrow(/token_endpoint/);
  });
});

describe('pkceAdvice', () => {
  const issuer = 'https://as';
  it('warns when plain is asked but only S256 is supported', () => {
    const advice = pkceAdvice({ issuer, code_challenge_methods_supported: ['S256'] }, 'plain');
    expect(advice).toEqual([expect.objectContaining({ level: 'warn', text: expect.stringMatching(/only S256.*not plain/) })]);
  });
  it('says when the server requires PKCE and it is not asked', () => {
    expect(pkceAdvice({ issuer, require_pkce: true }, undefined)).toEqual([expect.objectContaining({ level: 'warn', text: expect.stringMatching(/requires PKCE/) })]);
  });
  it('recommends PKCE when supported but not asked, and is quiet when S256 is used', () => {
    expect(pkceAdvice({ issuer, code_challenge_methods_supported: ['S256'] }, undefined)[0]?.level).toBe('info');
    expect(pkceAdvice({ issuer, code_challenge_methods_supported: ['S256', 'plain'] }, 'S256')).toEqual([]);
    expect(pkceAdvice({ issuer }, 'S256')).toEqual([]);
  });
});

describe('supportedAuthMethods', () => {
  it('defaults to client_secret_basic (RFC 8414 section 2)', () => {
    expect(supportedAuthMethods({ issuer: 'x' })).toEqual(['client_secret_basic']);
    expect(supportedAuthMethods({ issuer: 'x', token_endpoint_auth_methods_supported: ['none'] })).toEqual(['none']);
  });
});
