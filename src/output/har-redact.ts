import type { Har, HarEntry, HarNameValue } from './har.js';
import { redact, redactHeaderValue, SECRET_HEADERS, SECRET_PARAMS } from './redact.js';

/**
 * What a trace redacts beyond --verbose's list: a HAR is a file that users send to support desks, so
 * every value that lets its holder act is hidden, codes and assertions included.
 */
const TRACE_SECRET_PARAMS: ReadonlySet<string> = new Set([
  ...SECRET_PARAMS,
  'code',
  'device_code',
  'subject_token',
  'actor_token',
  'assertion',
  'id_token_hint',
  'logout_token',
  'registration_access_token',
  'initial_access_token',
]);

/** Shorter values are redacted where they stand, but not searched for across the file (too many false hits). */
const MIN_SCRUB_LENGTH = 6;
const MAX_JSON_DEPTH = 32;

/**
 * Redacts a HAR in its structure (query and form parameters, headers, cookies, JSON fields, by name),
 * then removes every value found that way from every other string of the file: a code also sits in a
 * Location header, a form_post page and a Referer, and a password under any field name.
 */
export function redactHar(har: Har, knownSecrets: Iterable<string>): Har {
  const secrets = new Set<string>(knownSecrets);
  const entries = har.log.entries.map((entry) => redactEntry(entry, secrets));
  const scrub = scrubber(secrets);
  return { log: { ...har.log, entries: entries.map((e) => scrubStrings(e, scrub)) } };
}

function redactEntry(entry: HarEntry, secrets: Set<string>): HarEntry {
  const { request, response } = entry;
  const postData = request.postData && {
    ...request.postData,
    ...(request.postData.params
      ? { params: redactPairs(request.postData.params, secrets), text: redactFormText(request.postData.text, secrets) }
      : { text: redactBodyText(request.postData.text, request.postData.mimeType, secrets) }),
  };
  return {
    ...entry,
    request: {
      ...request,
      url: redactUrl(request.url, secrets),
      queryString: redactPairs(request.queryString, secrets),
      headers: request.headers.map((h) => redactHeader(h, secrets)),
      cookies: request.cookies.map((c) => redactCookie(c, secrets)),
      ...(postData ? { postData } : {}),
    },
    response: {
      ...response,
      headers: response.headers.map((h) => (h.name.toLowerCase() === 'location' ? { ...h, value: redactUrl(h.value, secrets) } : redactHeader(h, secrets))),
      cookies: response.cookies.map((c) => redactCookie(c, secrets)),
      redirectURL: redactUrl(response.redirectURL, secrets),
      content: { ...response.content, ...(response.content.text !== undefined ? { text: redactBodyText(response.content.text, response.content.mimeType, secrets) } : {}) },
    },
  };
}

function keep(secrets: Set<string>, value: string): string {
  if (value !== '') secrets.add(value);
  return redact(value);
}

function redactPairs(pairs: readonly HarNameValue[], secrets: Set<string>): HarNameValue[] {
  return pairs.map((p) => (TRACE_SECRET_PARAMS.has(p.name) ? { ...p, value: keep(secrets, p.value) } : p));
}

/** The parameters with their secret values redacted, in their order; undefined when none was secret. */
function redactParams(params: URLSearchParams, secrets: Set<string>): string | undefined {
  const pairs = [...params];
  if (!pairs.some(([name]) => TRACE_SECRET_PARAMS.has(name))) return undefined;
  return new URLSearchParams(pairs.map(([name, value]): [string, string] => [name, TRACE_SECRET_PARAMS.has(name) ? keep(secrets, value) : value])).toString();
}

function redactFormText(text: string, secrets: Set<string>): string {
  return redactParams(new URLSearchParams(text), secrets) ?? text;
}

/** A URL with its secret query and fragment parameters redacted (the fragment carries the implicit and fragment responses). */
function redactUrl(value: string, secrets: Set<string>): string {
  if (value === '') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const query = redactParams(url.searchParams, secrets);
  if (query !== undefined) url.search = query;
  const fragment = url.hash.length > 1 ? redactParams(new URLSearchParams(url.hash.slice(1)), secrets) : undefined;
  if (fragment !== undefined) url.hash = fragment;
  return url.href;
}

function redactHeader(h: HarNameValue, secrets: Set<string>): HarNameValue {
  const name = h.name.toLowerCase();
  if (!SECRET_HEADERS.has(name) && name !== 'dpop') return h;
  if (name === 'authorization' || name === 'proxy-authorization') {
    const credentials = /^\w+\s+(.*)$/.exec(h.value)?.[1] ?? h.value;
    secrets.add(credentials);
    // client_secret_basic (RFC 6749 section 2.3.1): the secret inside the base64 is a secret too.
    if (/^basic\s/i.test(h.value)) {
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      const secret = decoded.slice(decoded.indexOf(':') + 1);
      if (decoded.includes(':') && secret !== '') {
        secrets.add(secret);
        secrets.add(decodeURIComponentSafe(secret));
      }
    }
  } else if (name === 'dpop') {
    secrets.add(h.value);
  } else {
    const pairs = name === 'cookie' ? h.value.split(/;\s*/) : h.value.split('\n').map((line) => line.split(';')[0] ?? '');
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at > 0) secrets.add(pair.slice(at + 1).trim());
    }
  }
  return { ...h, value: redactHeaderValue(h.name, h.value) };
}

function redactCookie(c: HarNameValue, secrets: Set<string>): HarNameValue {
  return { ...c, value: keep(secrets, c.value) };
}

function redactBodyText(text: string, mimeType: string, secrets: Set<string>): string {
  if (/application\/x-www-form-urlencoded/i.test(mimeType)) return redactFormText(text, secrets);
  if (!/json/i.test(mimeType) && !/^\s*[{[]/.test(text)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(redactJson(parsed, secrets, 0));
}

function redactJson(value: unknown, secrets: Set<string>, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = TRACE_SECRET_PARAMS.has(k) && typeof v === 'string' ? keep(secrets, v) : redactJson(v, secrets, depth + 1);
  }
  return out;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Replaces every known secret (as is, and URL-encoded) in a string. */
function scrubber(secrets: Set<string>): (text: string) => string {
  const forms = new Map<string, string>();
  for (const s of secrets) {
    if (s.length < MIN_SCRUB_LENGTH || s.startsWith('[redacted ')) continue;
    forms.set(s, redact(s));
    for (const encoded of [encodeURIComponent(s), new URLSearchParams({ v: s }).toString().slice(2)]) {
      if (encoded !== s) forms.set(encoded, encodeURIComponent(redact(s)));
    }
  }
  const ordered = [...forms.entries()].sort((a, b) => b[0].length - a[0].length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((out, [secret, marker]) => (out.includes(secret) ? out.split(secret).join(marker) : out), text);
}

function scrubStrings<T>(value: T, scrub: (text: string) => string): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrubStrings(v, scrub)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrubStrings(v, scrub);
    return out as T;
  }
  return value;
}
