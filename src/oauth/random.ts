import { randomBytes } from 'node:crypto';

/** An unguessable value with `bits` of entropy, base64url encoded (RFC 6749 section 10.10, RFC 9700 section 4.7.1). */
export function randomToken(bits = 256): string {
  return randomBytes(Math.ceil(bits / 8)).toString('base64url');
}

/** The default state: 128 random bits at least, as the contract fixes. */
export function generateState(): string {
  return randomToken(128);
}
