// A fresh P-256 key pair (src/oauth/p256-key.ts): valid ES256 keys with a full-length JWK, and made
// in a way that never deadlocks a later JWK export on Node 20, as generateKeyPairSync did (found as an
// `oauthctl url --dpop --save` that hung after discovery in about one run in 300).
import { spawnSync } from 'node:child_process';
import { createPublicKey, sign, verify } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateP256KeyPair } from '../../src/oauth/p256-key.js';
import { ROOT } from '../helpers/cli.js';

describe('generateP256KeyPair', () => {
  it('makes ES256 keys whose JWK is the key, with x, y and d at their full 32 octets', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const { privateKey, publicKey, publicJwk } = generateP256KeyPair();
      expect(publicKey.export({ format: 'jwk' })).toEqual(publicJwk);
      const d = privateKey.export({ format: 'jwk' }).d!;
      // 32 octets are 43 base64url characters; a d or x with a leading zero octet keeps it.
      expect([publicJwk.x.length, publicJwk.y.length, d.length]).toEqual([43, 43, 43]);
      expect(privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      const data = Buffer.from(`message ${i}`);
      const signature = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      expect(verify('sha256', data, { key: createPublicKey({ key: publicJwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
      seen.add(publicJwk.x);
    }
    expect(seen.size).toBe(500);
  });

  it('40,000 keys made and exported as JWKs while the heap churns: no deadlock (generateKeyPairSync hung within that on Node 20)', () => {
    const module = pathToFileURL(join(ROOT, 'dist', 'oauth', 'p256-key.js')).href;
    const script = `
      import { generateP256KeyPair } from ${JSON.stringify(module)};
      let churn = [];
      for (let i = 0; i < 40000; i++) {
        for (let j = 0; j < (i * 7919) % 97; j++) churn.push({ j });
        if (churn.length > 5000) churn = [];
        const { privateKey, publicKey } = generateP256KeyPair();
        publicKey.export({ format: 'jwk' });
        privateKey.export({ format: 'jwk' });
      }
      process.stdout.write('done');`;
    // The bound only ends a hung child; a healthy run takes a few seconds.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 90_000 });
    expect(r.signal, 'the child hung and was killed').toBeNull();
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('done');
  }, 120_000);
});
