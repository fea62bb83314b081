import type { AuditContext } from './context.js';
import { ProbeSkip } from './probe-errors.js';

/** The server's metadata document (RFC 8414), or a skip when the audit found none. */
export function metadataDocument(ctx: AuditContext): Record<string, unknown> {
  const document = ctx.metadata as Record<string, unknown> | undefined;
  if (!document) throw new ProbeSkip('no metadata document was found (RFC 8414 section 3; give --issuer)');
  return document;
}

/** A string list of the metadata, or undefined when the field is absent or not a list of strings. */
export function listOf(document: Record<string, unknown>, field: string): string[] | undefined {
  const value = document[field];
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}
