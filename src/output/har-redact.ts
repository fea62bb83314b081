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

/**
 * A form field that holds a password whatever the site calls it: `password`, `passwd` (Entra ID),
 * `pwd`, `pass`, `passphrase`, `pin`, also inside a bracketed name (`user[password]`). It covers a
 * password typed into Chromium's window, which oauthctl never saw.
 */
const PASSWORD_NAME = /passw(?:or)?d|passphrase|(?:^|[^a-z])(?:pwd|pass|pin)(?:[^a-z]|$)/i;

/**
 * A value found by name is also searched for in every other string of the file from this length on;
 * a shorter one (a 3-character password) would hit unrelated text, so it is only redacted where a form
 * value can travel: parameters, form and JSON fields, header values, a page's attribute values.
 */
const MIN_SCRUB_LENGTH = 6;
const MAX_JSON_DEPTH = 32;

/** What decides that a value is secret: its name, or (whatever its name) being a value the user typed. */
interface Secrets {
  /** Every secret value found so far, for the search across the file. */
  found: Set<string>;
  /** The values typed (a login form's password), hidden wherever they stand whole, whatever their length. */
  typed: ReadonlySet<string>;
}

function isSecret(name: string, value: string, secrets: Secrets): boolean {
  return TRACE_SECRET_PARAMS.has(name) || PASSWORD_NAME.test(name) || (value !== '' && secrets.typed.has(value));
}

/**
 * Redacts a HAR in its structure (query and form parameters, headers, cookies, JSON fields, by name;
 * the typed values under any name), then removes every value found that way from every other string
 * of the file: a code also sits in a Location header, a form_post page and a Referer.
 */
export function redactHar(har: Har, knownSecrets: Iterable<string>): Har {
  const typed = new Set([...knownSecrets].filter((s) => s !== ''));
  const secrets: Secrets = { found: new Set(typed), typed };
  const entries = har.log.entries.map((entry) => redactEntry(entry, secrets));
  const scrub = scrubber(secrets.found);
  return { log: { ...har.log, entries: entries.map((e) => scrubStrings(e, scrub)) } };
}

function redactEntry(entry: HarEntry, secrets: Secrets): HarEntry {
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

function keep(secrets: Secrets, value: string): string {
  if (value !== '') secrets.found.add(value);
  return redact(value);
}

function redactPairs(pairs: readonly HarNameValue[], secrets: Secrets): HarNameValue[] {
  return pairs.map((p) => (isSecret(p.name, p.value, secrets) ? { ...p, value: keep(secrets, p.value) } : p));
}

/** The parameters with their secret values redacted, in their order; undefined when none was secret. */
function redactParams(params: URLSearchParams, secrets: Secrets): string | undefined {
  const pairs = [...params];
  if (!pairs.some(([name, value]) => isSecret(name, value, secrets))) return undefined;
  return new URLSearchParams(pairs.map(([name, value]): [string, string] => [name, isSecret(name, value, secrets) ? keep(secrets, value) : value])).toString();
}

function redactFormText(text: string, secrets: Secrets): string {
  return redactParams(new URLSearchParams(text), secrets) ?? text;
}

/** A URL with its secret query and fragment parameters redacted (the fragment carries the implicit and fragment responses). */
function redactUrl(value: string, secrets: Secrets): string {
  if (value === '') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return redactRelativeUrl(value, secrets);
  }
  const query = redactParams(url.searchParams, secrets);
  if (query !== undefined) url.search = query;
  const fragment = url.hash.length > 1 ? redactParams(new URLSearchParams(url.hash.slice(1)), secrets) : undefined;
  if (fragment !== undefined) url.hash = fragment;
  return url.href;
}

/** A relative reference (a Location of `/next?passwd=...`, RFC 3986 section 4.2): its query and fragment, the rest as it was. */
function redactRelativeUrl(value: string, secrets: Secrets): string {
  const hashAt = value.indexOf('#');
  const beforeHash = hashAt < 0 ? value : value.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? undefined : beforeHash.slice(queryAt + 1);
  const fragment = hashAt < 0 ? undefined : value.slice(hashAt + 1);
  const part = (text: string | undefined, mark: string) => (text === undefined ? '' : `${mark}${redactParams(new URLSearchParams(text), secrets) ?? text}`);
  return `${path}${part(query, '?')}${part(fragment, '#')}`;
}

function redactHeader(h: HarNameValue, secrets: Secrets): HarNameValue {
  const name = h.name.toLowerCase();
  if (secrets.typed.has(h.value)) return { ...h, value: redact(h.value) };
  // A Referer or any other URL-valued header: its parameters as a URL's.
  if (name === 'referer') return { ...h, value: redactUrl(h.value, secrets) };
  if (!SECRET_HEADERS.has(name) && name !== 'dpop') return h;
  if (name === 'authorization' || name === 'proxy-authorization') {
    const credentials = /^\w+\s+(.*)$/.exec(h.value)?.[1] ?? h.value;
    secrets.found.add(credentials);
    // client_secret_basic (RFC 6749 section 2.3.1): the secret inside the base64 is a secret too.
    if (/^basic\s/i.test(h.value)) {
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      const secret = decoded.slice(decoded.indexOf(':') + 1);
      if (decoded.includes(':') && secret !== '') {
        secrets.found.add(secret);
        secrets.found.add(decodeURIComponentSafe(secret));
      }
    }
  } else if (name === 'dpop') {
    secrets.found.add(h.value);
  } else {
    const pairs = name === 'cookie' ? h.value.split(/;\s*/) : h.value.split('\n').map((line) => line.split(';')[0] ?? '');
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at > 0) secrets.found.add(pair.slice(at + 1).trim());
    }
  }
  return { ...h, value: redactHeaderValue(h.name, h.value) };
}

function redactCookie(c: HarNameValue, secrets: Secrets): HarNameValue {
  return { ...c, value: keep(secrets, c.value) };
}

function redactBodyText(text: string, mimeType: string, secrets: Secrets): string {
  if (/application\/x-www-form-urlencoded/i.test(mimeType)) return redactFormText(text, secrets);
  if (/html/i.test(mimeType)) return redactHtmlValues(text, secrets);
  if (!/json/i.test(mimeType) && !/^\s*[{[]/.test(text)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(redactJson(parsed, secrets, 0));
}

function redactJson(value: unknown, secrets: Secrets, depth: number): unknown {
  if (typeof value === 'string' && secrets.typed.has(value)) return redact(value);
  if (depth > MAX_JSON_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = typeof v === 'string' && isSecret(k, v, secrets) ? keep(secrets, v) : redactJson(v, secrets, depth + 1);
  }
  return out;
}

/**
 * A page's attribute values (a login page sent back with the typed password in `value="..."`) that are
 * a typed value once their character references are read. The pattern has no nested repetition: one
 * pass over the text.
 */
function redactHtmlValues(html: string, secrets: Secrets): string {
  if (secrets.typed.size === 0) return html;
  return html.replace(/=\s*(?:"([^"]*)"|'([^']*)')/g, (whole, double: string | undefined, single: string | undefined) => {
    const raw = double ?? single ?? '';
    const value = decodeHtml(raw);
    return secrets.typed.has(value) ? whole.replace(raw, redact(value)) : whole;
  });
}

/** The character references a password can come back as (HTML 13.5): named for the markup characters, decimal, hex. */
function decodeHtml(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(amp|lt|gt|quot|apos));/gi, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return named[name.toLowerCase()] ?? whole;
    const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Replaces every known secret (as is, URL-encoded, inside a JSON string, as HTML text) in a string. */
function scrubber(secrets: Set<string>): (text: string) => string {
  const forms = new Map<string, string>();
  for (const s of secrets) {
    if (s.length < MIN_SCRUB_LENGTH || s.startsWith('[redacted ')) continue;
    forms.set(s, redact(s));
    for (const written of [JSON.stringify(s).slice(1, -1), s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')]) {
      if (written !== s) forms.set(written, redact(s));
    }
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
