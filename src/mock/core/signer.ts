import { sign, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { SigningAlg } from './config.js';

/** Signs a JWS signing input (RFC 7515 section 5.1) with the mock's private key: resolves to the compact JWS. */
export interface JwsSigner {
  sign(input: string): Promise<string>;
  close(): Promise<void>;
}

// The signing thread: signs each batch it receives synchronously and answers with all its signatures
// in one message (null where a signature failed). Evaluated from a string, so that it runs the same
// from dist/ and from the TypeScript sources under test.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createPrivateKey, sign } = require('node:crypto');
const key = createPrivateKey({ key: workerData.pkcs8, format: 'der', type: 'pkcs8' });
const signer = workerData.alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key;
parentPort.on('message', (inputs) => {
  const out = new Array(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    try { out[i] = sign('sha256', Buffer.from(inputs[i]), signer).toString('base64url'); } catch { out[i] = null; }
  }
  parentPort.postMessage(out);
});
`;

interface Pending {
  input: string;
  resolve(signature: string): void;
  reject(err: Error): void;
}

/**
 * One dedicated signing thread fed in batches: the inputs that arrive during one turn of the event
 * loop go over as one message and come back as one. Per token this costs the event loop far less
 * than a dispatch to libuv's thread pool, and one thread (not the pool's four) competes with the
 * event loop for the cores. If the thread cannot start or dies, signing falls back to the pool.
 */
export function createJwsSigner(alg: SigningAlg, privateKey: KeyObject): JwsSigner {
  const direct = alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
  const signInPool = (input: string) =>
    new Promise<string>((resolve, reject) => {
      sign('sha256', Buffer.from(input), direct, (err, signature) => (err ? reject(err) : resolve(`${input}.${signature.toString('base64url')}`)));
    });

  let worker: Worker | undefined;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { alg, pkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }) } });
    worker.unref();
  } catch {
    worker = undefined;
  }
  let queue: Pending[] = [];
  const inFlight: Pending[][] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (!worker) {
      for (const p of batch) signInPool(p.input).then(p.resolve, p.reject);
      return;
    }
    inFlight.push(batch);
    worker.postMessage(batch.map((p) => p.input));
  };
  const broken = () => {
    worker = undefined;
    // What the thread had not answered goes to the pool instead.
    for (const batch of inFlight.splice(0)) for (const p of batch) signInPool(p.input).then(p.resolve, p.reject);
  };
  if (worker) {
    worker.on('message', (signatures: (string | null)[]) => {
      const batch = inFlight.shift() ?? [];
      for (let i = 0; i < batch.length; i++) {
        const p = batch[i]!;
        const signature = signatures[i];
        if (typeof signature === 'string') p.resolve(`${p.input}.${signature}`);
        else p.reject(new Error('the signing thread could not sign a token'));
      }
    });
    worker.on('error', broken);
    worker.on('exit', broken);
  }

  return {
    sign(input) {
      if (!worker) return signInPool(input);
      return new Promise<string>((resolve, reject) => {
        queue.push({ input, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
