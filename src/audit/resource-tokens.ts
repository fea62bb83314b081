import { generateKeyPair, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwtUnverified } from '../oauth/jwt.js';
import type { AuditContext } from './context.js';
import { signCompact, unsecured } from './forged-jws.js';
import { requiredScopes, resourceUrl, workingToken } from './protected-resource.js';

/**
 * The tokens a protected resource must refuse that the audit makes itself (RFC 8725 section 2, RFC 9068
 * section 4): claims a valid token for the resource would carry, signed by a key the resource has no
 * reason to trust, or not signed at all. The audit's real token gives the claims and header when it is
 * a JWT; an opaque one leaves them to the audit (issuer, the resource as audience, the needed scope).
 */
export interface TokenShape {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** The JWS algorithm of the real tokens (RS256 when they are opaque). */
  alg: string;
}

export async function tokenShape(ctx: AuditContext): Promise<TokenShape> {
  const token = await workingToken(ctx);
  const decoded = decodeJwtUnverified(token);
  const now = Math.floor(Date.now() / 1000);
  const fresh = { iat: now, nbf: now, exp: now + 300, jti: randomUUID() };
  if (decoded) {
    const alg = typeof decoded.header.alg === 'string' && decoded.header.alg !== 'none' ? decoded.header.alg : 'RS256';
    const header: Record<string, unknown> = { typ: decoded.header.typ ?? 'at+jwt', ...(decoded.header.kid !== undefined && { kid: decoded.header.kid }) };
    return { header, claims: { ...decoded.claims, ...fresh }, alg };
  }
  const scope = (await requiredScopes(ctx)).join(' ');
  const claims = { iss: ctx.issuer ?? ctx.serverOrigin, sub: 'oauthctl-audit', aud: resourceUrl(ctx), client_id: ctx.config.clientId, ...(scope && { scope }), ...fresh };
  return { header: { typ: 'at+jwt' }, claims, alg: 'RS256' };
}

const newKeyPair = promisify(generateKeyPair);

/** A fresh private key for `alg` (RFC 7518 section 3.1), with its public JWK; HMAC algorithms get an EC key instead (no shared secret to guess). */
export async function freshKey(alg: string): Promise<{ alg: string; privateKey: KeyObject; publicJwk: Record<string, unknown> }> {
  const [used, pair] =
    alg.startsWith('RS') || alg.startsWith('PS')
      ? [alg, await newKeyPair('rsa', { modulusLength: 2048 })]
      : alg === 'EdDSA'
        ? [alg, await newKeyPair('ed25519')]
        : alg === 'ES384'
          ? [alg, await newKeyPair('ec', { namedCurve: 'P-384' })]
          : alg === 'ES512'
            ? [alg, await newKeyPair('ec', { namedCurve: 'P-521' })]
            : ['ES256', await newKeyPair('ec', { namedCurve: 'P-256' })];
  return { alg: used, privateKey: pair.privateKey, publicJwk: pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown> };
}

/** The token's claims and header, signed by a key of the audit's own (the real kid kept, so a resource finds the real key and the signature fails). */
export async function signedByAnotherKey(shape: TokenShape): Promise<string> {
  const key = await freshKey(shape.alg);
  return signCompact({ ...shape.header, alg: key.alg }, shape.claims, key.privateKey, key.alg);
}

/** The token's claims with alg none and no signature (RFC 8725 section 2.1). */
export function unsigned(shape: TokenShape): string {
  return unsecured(shape.header, shape.claims);
}

/** Random bytes where a token goes: no JWT, no token the server issued. */
export function garbageToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * An authorization server of the audit's own on loopback: its RFC 8414 and OpenID Connect discovery
 * documents and its JWKS, nothing else. A resource that trusts whatever issuer a token names fetches
 * these and takes a token signed by it; one that knows its issuer never asks.
 */
export interface LoopbackIssuer {
  issuer: string;
  /** Signs the claims as this issuer (iss set), with its key and kid. */
  sign(header: Record<string, unknown>, claims: Record<string, unknown>): string;
  /** Whether anything fetched its metadata or keys (the resource went looking). */
  readonly fetched: readonly string[];
  close(): Promise<void>;
}

export async function startLoopbackIssuer(alg: string): Promise<LoopbackIssuer> {
  const key = await freshKey(alg);
  const kid = `oauthctl-audit-${randomUUID()}`;
  const fetched: string[] = [];
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://loopback').pathname;
    fetched.push(path);
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    if (path === '/.well-known/oauth-authorization-server' || path === '/.well-known/openid-configuration') {
      return json({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: [key.alg],
      });
    }
    if (path === '/jwks') return json({ keys: [{ ...key.publicJwk, kid, alg: key.alg, use: 'sig' }] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    fetched,
    sign: (header, claims) => signCompact({ ...header, alg: key.alg, kid }, { ...claims, iss: issuer }, key.privateKey, key.alg),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
