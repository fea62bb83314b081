import { randomUUID } from 'node:crypto';

export const newJti = (): string => randomUUID();

/** BASE64URL(UTF8(JSON)) of a JWS header or payload (RFC 7515 section 7.1). */
export function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
