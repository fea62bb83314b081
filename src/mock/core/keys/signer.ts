import { constants, sign, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { SigningAlg } from '../config/config.js';

/** Signs a JWS signing input (RFC 7515 section 5.1) with the mock's private key: resolves to the compact JWS. */
export interface JwsSigner {
  sign(input: string): Promise<string>;
  close(): Promise<void>;
}

// The signing thread: signs the inputs of each batch it receives in order and answers each as soon as
// it is made (null where a signature failed), so that the first token of a batch goes out while the
// thread signs the next rather than after the last. Evaluated from a string, so that it runs the same
// from dist/ and from the TypeScript sources under test.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { constants, createPrivateKey, sign } = require('node:crypto');
const key = createPrivateKey({ key: workerData.pkcs8, format: 'der', type: 'pkcs8' });
const signer =
  workerData.alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : workerData.alg === 'PS256' ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } : key;
parentPort.on('message', (inputs) => {
  for (const input of inputs) {
    let signature = null;
    try { signature = sign('sha256', Buffer.from(input), signer).toString('base64url'); } catch {}
    parentPort.postMessage(signature);
  }
});
`;

interface Pending {
  input: string;
  resolve(signature: string): void;
  reject(err: Error): void;
}

/**
 * Signatures made at once on the event loop before the signing thread starts (tens of microseconds
 * each with ES256, a millisecond or two with RS256): a test fixture that signs a few tokens pays for
 * neither a thread (starting one takes tens of milliseconds) nor a hop to libuv's pool; a server
 * under load moves to the thread after these.
 */
export const SIGNATURES_BEFORE_THREAD = 32;

/**
 * One dedicated signing thread fed in batches: the inputs that arrive during one turn of the event
 * loop go over as one message; each signature comes back on its own as soon as it is made. Per token
 * this costs the event loop far less than a dispatch to libuv's thread pool, and one thread (not the
 * pool's four) competes with the event loop for the cores. The thread starts after `threadAfter`
 * signatures, made on the event loop; until it is online, and for good if it cannot start or dies,
 * signing goes to libuv's pool. `workerSource` is the thread's code (tests give one that fails).
 */
export function createJwsSigner(alg: SigningAlg, privateKey: KeyObject, threadAfter = SIGNATURES_BEFORE_THREAD, workerSource = WORKER_SOURCE): JwsSigner {
  const direct = signOptions(alg, privateKey);
  const signNow = (input: string) => `${input}.${sign('sha256', Buffer.from(input), direct).toString('base64url')}`;
  const signInPool = (input: string) =>
    new Promise<string>((resolve, reject) => {
      sign('sha256', Buffer.from(input), direct, (err, signature) => (err ? reject(err) : resolve(`${input}.${signature.toString('base64url')}`)));
    });

  let worker: Worker | undefined;
  let online = false;
  let closed = false;
  /** The thread could not start or died: the pool signs from then on, and no thread is started again. */
  let failed = false;
  let signed = 0;
  let queue: Pending[] = [];
  /** Sent to the thread, not yet answered, in the order the answers come (one message each). */
  let inFlight: Pending[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (!worker) {
      for (const p of batch) signInPool(p.input).then(p.resolve, p.reject);
      return;
    }
    for (const p of batch) inFlight.push(p);
    worker.postMessage(batch.map((p) => p.input));
  };
  const broken = () => {
    failed = true;
    worker = undefined;
    online = false;
    // What the thread had not answered goes to the pool instead.
    const unanswered = inFlight;
    inFlight = [];
    for (const p of unanswered) signInPool(p.input).then(p.resolve, p.reject);
  };
  const startThread = () => {
    let w: Worker;
    try {
      // execArgv []: the thread needs none of the process's options, and some would break it (a process
      // started with --input-type=module would run this CommonJS source as an ES module, which fails).
      w = new Worker(workerSource, { eval: true, execArgv: [], workerData: { alg, pkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }) } });
    } catch {
      failed = true;
      return;
    }
    w.unref();
    worker = w;
    w.on('online', () => (online = worker === w));
    w.on('message', (signature: string | null) => {
      const p = inFlight.shift();
      if (!p) return;
      if (typeof signature === 'string') p.resolve(`${p.input}.${signature}`);
      else p.reject(new Error('the signing thread could not sign a token'));
    });
    w.on('error', broken);
    w.on('exit', broken);
  };

  return {
    sign(input) {
      if (!worker && !closed && !failed && ++signed >= threadAfter) startThread();
      if (signed < threadAfter) {
        try {
          return Promise.resolve(signNow(input));
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
      }
      if (!online) return signInPool(input);
      return new Promise<string>((resolve, reject) => {
        queue.push({ input, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      closed = true;
      const w = worker;
      worker = undefined;
      online = false;
      if (w) await w.terminate();
    },
  };
}

/**
 * How node:crypto signs for each algorithm (RFC 7518 section 3): ES256 as R || S (section 3.4), PS256
 * with PSS padding and a salt as long as the SHA-256 hash (section 3.5), RS256 with PKCS #1 v1.5.
 */
function signOptions(alg: SigningAlg, key: KeyObject) {
  if (alg === 'ES256') return { key, dsaEncoding: 'ieee-p1363' as const };
  if (alg === 'PS256') return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
  return key;
}
