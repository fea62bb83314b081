import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';
import { jsonObject } from '../../json-body.js';

/** Members that hold private or secret key material (RFC 7518 sections 6.2.2, 6.3.2 and 6.4.1). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const SIGNING_ALG = /^(RS|PS|ES|HS)(256|384|512)$|^ES256K$|^EdDSA$|^Ed25519$|^Ed448$/;
const ENCRYPTION_ALG = /^(RSA-OAEP(-256|-384|-512)?|RSA1_5|ECDH-ES(\+A(128|192|256)KW)?|A(128|192|256)(GCM)?KW|dir|PBES2-.*)$/;

/** The key type an alg is used with (RFC 7518 sections 3.1 and 4.1); undefined for algs not judged here. */
function keyTypeOf(alg: string): string | undefined {
  if (/^(RS|PS)\d+$|^RSA/.test(alg)) return 'RSA';
  if (/^ES\d+K?$|^ECDH-ES/.test(alg)) return alg.startsWith('ECDH') ? undefined : 'EC';
  if (/^(EdDSA|Ed25519|Ed448)$/.test(alg)) return 'OKP';
  if (/^HS\d+$|KW$|^dir$/.test(alg)) return 'oct';
  return undefined;
}

/** Bits of an RSA modulus given in base64url (RFC 7518 section 6.3.1.1). */
export function rsaModulusBits(n: string): number {
  const bytes = Buffer.from(n, 'base64url');
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] ?? 0));
}

export interface KeyFindings {
  failures: string[];
  warnings: string[];
}

/** What is wrong with a published JWK Set: private material and short RSA keys fail; a missing kid or incoherent use/alg warns. */
export function judgeJwks(keys: readonly Record<string, unknown>[]): KeyFindings {
  const failures: string[] = [];
  const warnings: string[] = [];
  keys.forEach((key, i) => {
    const name = typeof key.kid === 'string' ? `key ${JSON.stringify(key.kid)}` : `key #${i + 1}`;
    const secret = PRIVATE_MEMBERS.filter((m) => key[m] !== undefined);
    if (secret.length > 0) failures.push(`${name} publishes private key material (${secret.join(', ')})`);
    if (key.kty === 'RSA' && typeof key.n === 'string') {
      const bits = rsaModulusBits(key.n);
      if (bits < 2048) failures.push(`${name} is RSA with ${bits} bits, fewer than 2048 (RFC 7518 §3.3)`);
    }
    if (typeof key.kid !== 'string' || key.kid === '') warnings.push(`${name} has no kid`);
    const alg = typeof key.alg === 'string' ? key.alg : undefined;
    if (alg !== undefined) {
      const kty = keyTypeOf(alg);
      if (kty !== undefined && key.kty !== kty) warnings.push(`${name} is kty ${String(key.kty)} but alg ${alg} needs ${kty}`);
      if (key.use === 'sig' && ENCRYPTION_ALG.test(alg)) warnings.push(`${name} has use sig but the encryption alg ${alg}`);
      if (key.use === 'enc' && SIGNING_ALG.test(alg)) warnings.push(`${name} has use enc but the signing alg ${alg}`);
    }
    if (key.use !== undefined && key.use !== 'sig' && key.use !== 'enc') warnings.push(`${name} has use ${JSON.stringify(key.use)}, neither sig nor enc (RFC 7517 §4.2)`);
  });
  return { failures, warnings };
}

/** RFC 7517 and RFC 7518: the published keys are public only, strong enough, named and labelled coherently. */
export const jwksProbe: AuditProbe = {
  id: 'jwks',
  title: 'JWKS publishes sound public keys only',
  rfc: 'RFC 7517 §5',
  category: 'metadata',
  threat: 'RFC 7517 §5; RFC 8725 §3.5',
  remedy: 'Publish only public keys, each with a kid, of sufficient strength.',
  async run(ctx) {
    const uri = ctx.endpoint('jwks_uri');
    if (uri === undefined) return skip('no jwks_uri in the metadata (give --jwks-uri)');
    const res = await ctx.http.request(uri, { headers: { accept: 'application/jwk-set+json, application/json' } });
    if (res.status !== 200) return fail(`${uri} answered HTTP ${res.status}`);
    const keys = jsonObject(res.body, `the answer of ${uri}`)?.keys;
    if (!Array.isArray(keys)) return fail(`${uri} is not a JSON Web Key Set (RFC 7517 §5: {"keys": [...]})`);
    const objects = keys.filter((k): k is Record<string, unknown> => !!k && typeof k === 'object' && !Array.isArray(k));
    if (objects.length === 0) return warn(`${uri} holds no keys`);
    const { failures, warnings } = judgeJwks(objects);
    if (failures.length > 0) return fail([...failures, ...warnings].join('; '));
    if (warnings.length > 0) return warn(warnings.join('; '));
    const types = [...new Set(objects.map((k) => `${String(k.kty)}${k.alg ? `/${String(k.alg)}` : ''}`))].join(', ');
    return pass(`${objects.length} public ${objects.length === 1 ? 'key' : 'keys'} (${types}), each with a kid`);
  },
};
