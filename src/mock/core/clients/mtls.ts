import { hash, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { clientKeys } from './client-keys.js';
import type { MockClient } from '../config/config.js';
import type { Exchange } from '../http/http.js';

/** The certificate the caller presented on this TLS connection, or undefined (plain HTTP, or none sent). */
export function peerCertificate(ex: Exchange): { certificate: X509Certificate; chainVerified: boolean } | undefined {
  const socket = ex.req.socket as TLSSocket;
  if (!socket.encrypted || typeof socket.getPeerCertificate !== 'function') return undefined;
  const peer = socket.getPeerCertificate(false);
  if (!peer || !peer.raw) return undefined;
  return { certificate: new X509Certificate(peer.raw), chainVerified: socket.authorized };
}

/** RFC 8705 section 3.1: x5t#S256, the base64url SHA-256 of the DER certificate. */
export function certificateThumbprint(certificate: X509Certificate): string {
  return hash('sha256', certificate.raw, 'base64url');
}

/**
 * RFC 8705 section 2: tls_client_auth (PKI: a chain to a CA the mock trusts, the subject matching the
 * client's tls_client_auth_subject_dn) or self_signed_tls_client_auth (the certificate's public key is
 * one of the client's jwks). Resolves to undefined when the client is authenticated, else to why not.
 */
export async function tlsClientAuthProblem(ex: Exchange, client: MockClient): Promise<string | undefined> {
  const peer = peerCertificate(ex);
  if (!peer) return `client ${client.clientId} uses ${client.tokenEndpointAuthMethods.join(' or ')} but sent no client certificate over TLS (RFC 8705 section 2)`;
  const { certificate, chainVerified } = peer;
  if (client.tokenEndpointAuthMethods.includes('tls_client_auth')) {
    if (!chainVerified) return 'the client certificate is not signed by a CA this server trusts (the mock CA of --tls, or tls_client_auth_ca)';
    if (!sameDistinguishedName(certificate.subject, client.tlsClientAuthSubjectDn ?? '')) {
      return `the client certificate's subject does not match the client's tls_client_auth_subject_dn (RFC 8705 section 2.1.2)`;
    }
    return undefined;
  }
  const thumbprint = await calculateJwkThumbprint(certificate.publicKey.export({ format: 'jwk' }) as JWK);
  let keys;
  try {
    keys = await clientKeys(ex.state, client);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  for (const key of keys) {
    const { kty, crv, e, n, x, y } = key;
    const publicOnly = Object.fromEntries(Object.entries({ kty, crv, e, n, x, y }).filter(([, v]) => v !== undefined)) as JWK;
    if ((await calculateJwkThumbprint(publicOnly).catch(() => '')) === thumbprint) return undefined;
  }
  return "the client certificate's public key is not one of the client's jwks (RFC 8705 section 2.2)";
}

/**
 * Two distinguished names name the same subject: the same attributes with the same values, in any
 * order, attribute types case-insensitive. `subject` is node's form (one `TYPE=value` a line);
 * `configured` is RFC 4514's (`CN=a,O=b`, `\,` escaping a comma).
 */
export function sameDistinguishedName(subject: string, configured: string): boolean {
  const norm = (parts: string[]) =>
    parts
      .map((p) => {
        const eq = p.indexOf('=');
        return `${p.slice(0, eq).trim().toUpperCase()}=${p.slice(eq + 1).trim()}`;
      })
      .sort();
  const fromCert = norm(subject.split('\n').filter((l) => l.includes('=')));
  const fromConfig = norm(
    configured
      .split(/(?<!\\)[,+]/)
      .map((p) => p.replace(/\\(.)/g, '$1'))
      .filter((p) => p.includes('=')),
  );
  return fromCert.length === fromConfig.length && fromCert.every((v, i) => v === fromConfig[i]);
}
