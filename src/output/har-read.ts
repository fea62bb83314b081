import { FLOW_STEPS, HAR_ACTORS, stepOf, type FlowStep, type HarActor, type HarNameValue } from './har.js';

/**
 * A HAR file read for `oauthctl trace`: it may come from anyone (a user sends it to a support desk),
 * so only the fields the views use are taken, each checked for its type and cut to a size; nothing
 * else of the file is walked, so deep nesting costs nothing.
 */
export interface TraceEntry {
  actor: HarActor;
  step: FlowStep;
  startedDateTime: string;
  time: number;
  method: string;
  url: string;
  requestHeaders: HarNameValue[];
  requestBody?: string | undefined;
  requestMimeType: string;
  status: number;
  responseHeaders: HarNameValue[];
  responseBody: string;
  responseMimeType: string;
  error?: string | undefined;
  /** The client sending the user agent to the authorization endpoint (no response of its own). */
  handoff: boolean;
  /** --step: the person's changes before it was sent, a line each. */
  edited?: string[] | undefined;
  /** The audit probe it was made for. */
  probe?: string | undefined;
}

export interface TraceFile {
  entries: TraceEntry[];
  /** Entries beyond MAX_ENTRIES, left out. */
  omitted: number;
  redacted: boolean | undefined;
}

export class NotAHarError extends Error {}

const MAX_ENTRIES = 5000;
const MAX_HEADERS = 200;
const MAX_TEXT = 256 * 1024;
const MAX_SHORT = 8 * 1024;
const ACTORS: ReadonlySet<string> = new Set(HAR_ACTORS);
const STEPS: ReadonlySet<string> = new Set(FLOW_STEPS);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max = MAX_SHORT): string => (typeof v === 'string' ? (v.length > max ? `${v.slice(0, max)}…(cut)` : v) : '');

/** Parses a HAR document's text; a NotAHarError says in one line what is wrong. */
export function readHar(source: string): TraceFile {
  let doc: unknown;
  try {
    doc = JSON.parse(source);
  } catch (err) {
    throw new NotAHarError(`it is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return readHarDocument(doc);
}

/** The same for a document already parsed (the --ui page reads the HAR it builds). */
export function readHarDocument(doc: unknown): TraceFile {
  const log = isObject(doc) ? doc.log : undefined;
  if (!isObject(log) || !Array.isArray(log.entries)) throw new NotAHarError('it has no log.entries array, as HAR 1.2 has');
  const entries: TraceEntry[] = [];
  for (const [i, raw] of log.entries.slice(0, MAX_ENTRIES).entries()) entries.push(entryOf(raw, i));
  const meta = isObject(log._oauthctl) ? log._oauthctl : undefined;
  return { entries, omitted: Math.max(0, log.entries.length - MAX_ENTRIES), redacted: typeof meta?.redacted === 'boolean' ? meta.redacted : undefined };
}

function entryOf(raw: unknown, i: number): TraceEntry {
  const request = isObject(raw) ? raw.request : undefined;
  const response = isObject(raw) ? raw.response : undefined;
  if (!isObject(raw) || !isObject(request) || !isObject(response) || typeof request.url !== 'string' || typeof request.method !== 'string') {
    throw new NotAHarError(`entry ${i + 1} has no request with a method and a URL`);
  }
  const postData = isObject(request.postData) ? request.postData : undefined;
  const content = isObject(response.content) ? response.content : undefined;
  const ours = isObject(raw._oauthctl) ? raw._oauthctl : {};
  const requestHeaders = pairs(request.headers);
  const base = {
    method: text(request.method, 32),
    url: text(request.url),
    requestHeaders,
    requestBody: postData && typeof postData.text === 'string' ? text(postData.text, MAX_TEXT) : undefined,
  };
  const actor = typeof ours.actor === 'string' && ACTORS.has(ours.actor) ? (ours.actor as HarActor) : 'client';
  const step = typeof ours.step === 'string' && STEPS.has(ours.step) ? (ours.step as FlowStep) : stepOf({ ...base, actor, requestHeaders: requestHeaders.map((h) => [h.name, h.value]) });
  const status = typeof response.status === 'number' && Number.isInteger(response.status) && response.status >= 0 && response.status < 1000 ? response.status : 0;
  const error = text(ours.error) || text(response._error);
  return {
    ...base,
    actor,
    step,
    startedDateTime: text(raw.startedDateTime, 64),
    time: typeof raw.time === 'number' && Number.isFinite(raw.time) ? raw.time : -1,
    requestMimeType: text(postData?.mimeType, 256),
    status,
    responseHeaders: pairs(response.headers),
    responseBody: text(content?.text, MAX_TEXT),
    responseMimeType: text(content?.mimeType, 256),
    handoff: ours.handoff === true,
    ...(error ? { error } : {}),
    ...(Array.isArray(ours.edited) ? { edited: ours.edited.slice(0, 50).map((line) => text(line)) } : {}),
    ...(typeof ours.probe === 'string' ? { probe: text(ours.probe, 128) } : {}),
  };
}

function pairs(list: unknown): HarNameValue[] {
  if (!Array.isArray(list)) return [];
  return list
    .slice(0, MAX_HEADERS)
    .filter(isObject)
    .map((h) => ({ name: text(h.name, 256), value: text(h.value) }));
}

export function headerOf(headers: readonly HarNameValue[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

/** The parameters of a request: query, then a form body. */
export function requestParams(e: TraceEntry): URLSearchParams {
  const params = new URLSearchParams();
  try {
    const url = new URL(e.url);
    for (const [k, v] of url.searchParams) params.append(k, v);
    if (url.hash.length > 1) for (const [k, v] of new URLSearchParams(url.hash.slice(1))) params.append(k, v);
  } catch {
    // not a URL: no query
  }
  if (e.requestBody !== undefined && /x-www-form-urlencoded/i.test(e.requestMimeType || (headerOf(e.requestHeaders, 'content-type') ?? ''))) {
    for (const [k, v] of new URLSearchParams(e.requestBody)) params.append(k, v);
  }
  return params;
}

/** The parameters a response carries: a JSON object's string fields, or the query of its Location. */
export function responseParams(e: TraceEntry): Map<string, string> {
  const out = new Map<string, string>();
  const location = headerOf(e.responseHeaders, 'location');
  if (location !== undefined) {
    try {
      const url = new URL(location, e.url);
      for (const [k, v] of url.searchParams) if (!out.has(k)) out.set(k, v);
      if (url.hash.length > 1) for (const [k, v] of new URLSearchParams(url.hash.slice(1))) if (!out.has(k)) out.set(k, v);
    } catch {
      // not a URL
    }
  }
  if (/^\s*\{/.test(e.responseBody)) {
    try {
      const body: unknown = JSON.parse(e.responseBody);
      if (isObject(body)) for (const [k, v] of Object.entries(body)) if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') out.set(k, String(v));
    } catch {
      // not JSON
    }
  }
  return out;
}
