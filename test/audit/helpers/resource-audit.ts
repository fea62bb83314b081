// What the audits of real resource servers share (test/audit/mcp.test.ts, mcp-sdk2.test.ts,
// express-jwt-bearer.test.ts): the audit as a resource's developer runs it, its verdicts by probe, and
// the two token checks their servers are built with (the SDKs' AuthInfo shape).
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { run } from '../../../src/cli/program/main.js';
import type { MockServer } from '../../../src/mock/index.js';
import type { AuditReport } from '../../../src/audit/types.js';
import { memoryIO } from '../../agent/helpers/io.js';

/** The audit of `resource` with the mock's public client; the mock logs in by itself, so no account. */
export async function auditResource(resource: string, ...extra: string[]): Promise<{ code: number; report: AuditReport & { summary: { plan?: { passed: boolean } } }; stderr: string }> {
  const io = memoryIO();
  const code = await run(['audit', '--protected-resource', resource, '--client-id', 'photo-cli', '--json', ...extra], io);
  return { code, report: JSON.parse(io.out()) as AuditReport, stderr: io.err() };
}

export const statuses = (report: AuditReport) => Object.fromEntries(report.probes.map((p) => [p.id, p.status]));
export const failed = (report: AuditReport) => report.probes.filter((p) => p.status === 'fail').map((p) => p.id);

/** A token's identity as the MCP SDKs' verifiers return it (their AuthInfo). */
export interface TokenInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource: URL;
}

/** A JWT checked with the authorization server's keys and issuer; `refuse` makes the SDK's invalid-token error. */
export function jwtVerifier(issuer: Record<string, unknown>, refuse: () => Error): (token: string) => Promise<TokenInfo> {
  const jwks = createRemoteJWKSet(new URL(String(issuer.jwks_uri)));
  return async (token) => {
    const { payload } = await jwtVerify(token, jwks, { issuer: String(issuer.issuer) }).catch(() => {
      throw refuse();
    });
    return { token, clientId: String(payload.client_id), scopes: String(payload.scope ?? '').split(' '), expiresAt: payload.exp!, resource: new URL([payload.aud].flat()[0]!) };
  };
}

/** The example: introspection at the mock, and a plain Error for a token it does not know (the SDKs answer 500). */
export function throwingIntrospection(mock: MockServer): (token: string) => Promise<TokenInfo> {
  return async (token) => {
    const r = await fetch(`${mock.authUrl}/introspect`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('photo-web:photo-web-secret').toString('base64')}` },
      body: new URLSearchParams({ token }),
    });
    const info = (await r.json()) as Record<string, unknown>;
    if (info.active !== true) throw new Error('token not active');
    return { token, clientId: String(info.client_id), scopes: String(info.scope ?? '').split(' '), expiresAt: Number(info.exp), resource: new URL([info.aud as string].flat()[0]!) };
  };
}
