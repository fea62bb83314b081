import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oidcTokenHash } from '../../src/oauth/token-hash.js';

const leftHalf = (name: string, value: string) => {
  const digest = createHash(name).update(value).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
};

describe('oidcTokenHash (at_hash and c_hash, OpenID Connect Core 3.1.3.6 and 3.3.2.11)', () => {
  it('gives the examples of OpenID Connect Core appendix A', () => {
    // A.3: an access token and its at_hash; A.4: a code and its c_hash (both RS256).
    expect(oidcTokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
    expect(oidcTokenHash('Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk', 'RS256')).toBe('LDktKdoQak3Pk0cnXxCltA');
  });

  it.each([
    ['RS256', 'sha256'],
    ['ES256', 'sha256'],
    ['PS256', 'sha256'],
    ['HS256', 'sha256'],
    ['ES384', 'sha384'],
    ['PS384', 'sha384'],
    ['RS512', 'sha512'],
    ['ES512', 'sha512'],
    ['EdDSA', 'sha512'],
    ['Ed25519', 'sha512'],
  ])('%s hashes with %s', (alg, name) => {
    expect(oidcTokenHash('an-access-token', alg)).toBe(leftHalf(name, 'an-access-token'));
  });

  it.each(['none', 'RS1', 'ES256K', 'XS256', 'RS2560', ''])('%j: no hash is known, undefined', (alg) => {
    expect(oidcTokenHash('x', alg)).toBeUndefined();
  });
});
