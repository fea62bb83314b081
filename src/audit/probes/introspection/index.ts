import type { AuditProbe } from '../../types.js';
import { introspectionUnauthenticatedProbe } from './introspection-unauthenticated.js';
import { introspectionUnknownTokenProbe } from './introspection-unknown-token.js';

/** Introspection (RFC 7662). */
export const INTROSPECTION_PROBES: readonly AuditProbe[] = [introspectionUnauthenticatedProbe, introspectionUnknownTokenProbe];
