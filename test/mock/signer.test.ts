import { execFile } from 'node:child_process';
import { verify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createJwsSigner } from '../../src/mock/core/keys/signer.js';
import { keyPairSync } from '../helpers/keys.js';

const check = (jws: string, input: string, publicKey: KeyObject, alg: 'ES256' | 'RS256') => {
  const dot = jws.lastIndexOf('.');
  expect(jws.slice(0, dot)).toBe(input);
  const signature = Buffer.from(jws.slice(dot + 1), 'base64url');
  const key = alg === 'ES256' ? { key: publicKey, dsaEncoding: 'ieee-p1363' as const } : publicKey;
  return verify('sha256', Buffer.from(input), key, signature);
};

describe('the batched signing thread', () => {
  for (const alg of ['ES256', 'RS256'] as const) {
    it(`signs a burst of ${alg} inputs, each with its own valid signature, in order`, async () => {
      const { privateKey, publicKey } = alg === 'ES256' ? keyPairSync('ec', { namedCurve: 'P-256' }) : keyPairSync('rsa', { modulusLength: 2048 });
      const signer = createJwsSigner(alg, privateKey, 1);
      try {
        // The first signature starts the thread (and is made on the pool meanwhile).
        expect(check(await signer.sign('Zmlyc3Q.aW5wdXQ'), 'Zmlyc3Q.aW5wdXQ', publicKey, alg)).toBe(true);
        await new Promise((r) => setTimeout(r, 200));
        const inputs = Array.from({ length: 20 }, (_, i) => `aGVhZGVy.cGF5bG9hZC0${i}`);
        const tokens = await Promise.all(inputs.map((input) => signer.sign(input)));
        tokens.forEach((jws, i) => expect(check(jws, inputs[i]!, publicKey, alg)).toBe(true));
        // A later batch too (after the first answer came back).
        expect(check(await signer.sign('bGF0ZXI.aW5wdXQ'), 'bGF0ZXI.aW5wdXQ', publicKey, alg)).toBe(true);
      } finally {
        await signer.close();
      }
    });
  }

  it('matches each answer to its input when batches overlap (answers come one by one, in order)', async () => {
    const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
    const signer = createJwsSigner('ES256', privateKey, 1);
    try {
      await signer.sign('c3RhcnQ.dGhyZWFk');
      await new Promise((r) => setTimeout(r, 200));
      const pending: { input: string; jws: Promise<string> }[] = [];
      // Three batches, each sent in its own turn of the event loop, before any answer is read.
      for (let batch = 0; batch < 3; batch++) {
        for (let i = 0; i < 7; i++) {
          const input = `YmF0Y2g${batch}.aW5wdXQ${i}`;
          pending.push({ input, jws: signer.sign(input) });
        }
        await new Promise((r) => setImmediate(r));
      }
      for (const { input, jws } of pending) expect(check(await jws, input, publicKey, 'ES256')).toBe(true);
    } finally {
      await signer.close();
    }
  });

  it('signs on the pool before the thread starts: a few signatures start no thread', async () => {
    const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
    const signer = createJwsSigner('ES256', privateKey, 1000);
    const inputs = Array.from({ length: 5 }, (_, i) => `cG9vbA.${i}`);
    const tokens = await Promise.all(inputs.map((input) => signer.sign(input)));
    tokens.forEach((jws, i) => expect(check(jws, inputs[i]!, publicKey, 'ES256')).toBe(true));
    await signer.close();
  });

  it('signs on the pool for good when the thread fails, and starts no second one', async () => {
    const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
    let threads = 0;
    const count = () => threads++;
    process.on('worker', count);
    const signer = createJwsSigner('ES256', privateKey, 1, "throw new Error('this thread fails at start')");
    try {
      for (let i = 0; i < 40; i++) {
        const input = `ZmFpbGVk.${i}`;
        expect(check(await signer.sign(input), input, publicKey, 'ES256')).toBe(true);
        if (i === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(threads).toBe(1);
    } finally {
      process.off('worker', count);
      await signer.close();
    }
  });

  it('runs its thread in a process started with --input-type=module (the thread inherits no options)', async () => {
    // Before, such a thread ran its CommonJS source as an ES module, failed, and was started again for
    // every signature: a few hundred tokens a second.
    const script = `
      import { verify } from 'node:crypto';
      import { createJwsSigner } from './dist/mock/core/keys/signer.js';
      import { generateP256KeyPair } from './dist/oauth/p256-key.js';
      let threads = 0;
      process.on('worker', (w) => { threads++; w.on('error', (e) => console.error('thread error: ' + e.message)); });
      const { privateKey, publicKey } = generateP256KeyPair();
      const signer = createJwsSigner('ES256', privateKey, 1);
      await signer.sign('c3RhcnQ.aW5wdXQ');
      await new Promise((r) => setTimeout(r, 300));
      const inputs = Array.from({ length: 30 }, (_, i) => 'aW5wdXQ.' + i);
      const tokens = await Promise.all(inputs.map((i) => signer.sign(i)));
      const valid = tokens.every((t, i) => verify('sha256', Buffer.from(inputs[i]), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(t.slice(t.lastIndexOf('.') + 1), 'base64url')));
      await signer.close();
      console.log(JSON.stringify({ threads, valid }));
    `;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), timeout: 20_000 });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({ threads: 1, valid: true });
  });

  it('still signs (on the thread pool) once the thread is stopped', async () => {
    const { privateKey, publicKey } = keyPairSync('ec', { namedCurve: 'P-256' });
    const signer = createJwsSigner('ES256', privateKey, 1);
    await signer.close();
    expect(check(await signer.sign('YWZ0ZXI.Y2xvc2U'), 'YWZ0ZXI.Y2xvc2U', publicKey, 'ES256')).toBe(true);
  });
});
