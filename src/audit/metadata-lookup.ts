import type { HttpClient } from '../client/http/http.js';
import { metadataLocations, type MetadataKind } from '../oauth/discovery.js';
import { jsonObject } from './json-body.js';

/** One metadata location tried, and what it answered. */
export interface MetadataAttempt {
  url: string;
  kind: MetadataKind;
  status: number;
  /** The Location of a 30x answer: metadata is served at the well-known URL itself (RFC 8414 section 3). */
  location?: string | undefined;
}

/** What the audit found where the issuer's metadata should be, before judging it. */
export interface MetadataLookup {
  /** The issuer the metadata was asked for: --issuer, else --auth-url, else the authorization endpoint's origin. */
  issuer: string;
  /** True when the issuer was given (--issuer), false when the audit assumed it. */
  given: boolean;
  attempts: MetadataAttempt[];
  /** The first location that answered 200 with a JSON object. */
  found?: { url: string; kind: MetadataKind; document: Record<string, unknown> } | undefined;
}

/**
 * Fetches the metadata locations of RFC 8414 section 3.1 and OpenID Connect Discovery section 4 for
 * the issuer, without following redirects, and keeps every answer for the metadata probe.
 */
export async function lookUpMetadata(http: HttpClient, issuer: string, given: boolean): Promise<MetadataLookup> {
  const lookup: MetadataLookup = { issuer, given, attempts: [] };
  for (const location of metadataLocations(issuer)) {
    const res = await http.request(location.url, { headers: { accept: 'application/json' } });
    lookup.attempts.push({ url: location.url, kind: location.kind, status: res.status, location: res.status >= 300 && res.status < 400 ? res.headers.location : undefined });
    if (res.status !== 200) continue;
    // Not a JSON object: the attempt's status stays in the record.
    const document = jsonObject(res.body, `the answer of ${location.url}`);
    if (document !== undefined) {
      lookup.found = { url: location.url, kind: location.kind, document };
      return lookup;
    }
  }
  return lookup;
}

/** The issuer the audit assumes without --issuer: --auth-url (the contract's issuer), else the origin, never a path under the authorization endpoint. */
export function assumedIssuer(authUrl: string | undefined, authorizationEndpoint: string): string {
  return authUrl ?? new URL(authorizationEndpoint).origin;
}

/** How each attempt answered, in words: "URL answered HTTP 302 (Location: ...)". */
export function describeAttempts(lookup: MetadataLookup): string {
  return lookup.attempts
    .map((a) => `${a.url} answered HTTP ${a.status}${a.location !== undefined ? ` (Location: ${a.location})` : a.status >= 300 && a.status < 400 ? ' without a Location' : ''}`)
    .join('; ');
}

/** An assumed issuer (no --issuer) cannot know whether the real one ends with a slash: both have the same well-known URL. */
export function sameIgnoringTrailingSlash(value: unknown, issuer: string): boolean {
  return typeof value === 'string' && value.replace(/\/$/, '') === issuer.replace(/\/$/, '');
}
