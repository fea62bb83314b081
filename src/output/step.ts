import { FlowError } from '../errors.js';
import { SECRET_HEADERS, SECRET_PARAMS } from './redact.js';

/**
 * `--step`: before each request of a flow the command asks a person (the `--ui` page or the terminal)
 * whether to send it, edit it first, skip it or abort. What the flow code hands over is the request as
 * it would go out; what comes back is the request to send, with a line per change for the narration
 * and the trace.
 */

/** Where a parameter sits in the request: the URL's query, the form body, a header, or a body of another type as a whole. */
export type FieldPlace = 'query' | 'form' | 'header' | 'body';

export interface StepField {
  place: FieldPlace;
  name: string;
  value: string;
  /** A secret (client_secret, an Authorization header...): shown redacted and kept as it is unless --show-secrets. */
  secret: boolean;
}

/** A request held before it is sent. */
export interface HeldRequest {
  /** The flow step (har.ts FLOW_STEPS): `token`, `authorization`... */
  step: string;
  /** What stops here, in a line: `Token request (RFC 6749 section 4.1.3)`. */
  title: string;
  method: string;
  url: string;
  fields: StepField[];
  /** Why it is asked again (an edit that was refused), in one line: the page shows it above the form (the terminal has had it as a warning). */
  note?: string | undefined;
}

export type StepAnswer = { action: 'send'; fields: StepField[] } | { action: 'skip' } | { action: 'abort' };

/** The person's side: the --ui page or the terminal. */
export interface Stepper {
  /** With --show-secrets the person sees (and may change) secret values; otherwise they are shown as REDACTED_MARK. */
  readonly showSecrets: boolean;
  ask(request: HeldRequest): Promise<StepAnswer>;
}

/** The request as the flow would send it. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body?: string | undefined;
}

/** A request skipped at the person's word: not sent, failed as if no answer came. */
export class StepSkipped extends FlowError {}

const FORM = /application\/x-www-form-urlencoded/i;

/** The fields a person may see and edit: the query, a form body's fields, the headers. */
function fieldsOf(request: OutgoingRequest, secrets: ReadonlySet<string> = new Set()): StepField[] {
  const fields: StepField[] = [];
  const secretParam = (name: string, value: string) => SECRET_PARAMS.has(name) || secrets.has(value);
  const url = new URL(request.url);
  for (const [name, value] of url.searchParams) fields.push({ place: 'query', name, value, secret: secretParam(name, value) });
  if (request.body !== undefined && isForm(request.headers)) {
    for (const [name, value] of new URLSearchParams(request.body)) fields.push({ place: 'form', name, value, secret: secretParam(name, value) });
  } else if (request.body !== undefined) {
    fields.push({ place: 'body', name: 'body', value: request.body, secret: [...secrets].some((s) => request.body!.includes(s)) });
  }
  for (const [name, value] of request.headers) {
    if (name.toLowerCase() === 'content-length') continue;
    fields.push({ place: 'header', name, value, secret: SECRET_HEADERS.has(name.toLowerCase()) || name.toLowerCase() === 'dpop' || secrets.has(value) });
  }
  return fields;
}

/** The request rebuilt from edited fields: query and form in the order given, the headers replaced. */
function requestOf(original: OutgoingRequest, fields: readonly StepField[]): OutgoingRequest {
  const url = new URL(original.url);
  url.search = new URLSearchParams(fields.filter((f) => f.place === 'query').map((f): [string, string] => [f.name, f.value])).toString();
  const formBody = original.body !== undefined && isForm(original.headers);
  const body = formBody ? new URLSearchParams(fields.filter((f) => f.place === 'form').map((f): [string, string] => [f.name, f.value])).toString() : fields.find((f) => f.place === 'body')?.value;
  return { method: original.method, url: url.href, headers: fields.filter((f) => f.place === 'header').map((f) => [f.name, f.value]), body };
}

/** Each difference in a line: `scope: "openid profile" -> "openid"`, `code_challenge removed`, `prompt=login added`. */
function describeEdits(before: readonly StepField[], after: readonly StepField[]): string[] {
  const key = (f: StepField) => `${f.place} ${f.place === 'header' ? f.name.toLowerCase() : f.name}`;
  const shown = (f: StepField) => (f.secret ? '[secret]' : JSON.stringify(f.value));
  const old = new Map(before.map((f) => [key(f), f]));
  const now = new Map(after.map((f) => [key(f), f]));
  const edits: string[] = [];
  for (const [k, f] of old) {
    const n = now.get(k);
    if (n === undefined) edits.push(`${f.place} ${f.name} removed`);
    else if (n.value !== f.value) edits.push(`${f.place} ${f.name}: ${shown(f)} -> ${shown({ ...n, secret: f.secret })}`);
  }
  for (const [k, f] of now) if (!old.has(k)) edits.push(`${f.place} ${f.name}=${shown(f)} added`);
  return edits;
}

/**
 * Holds a request for the person when --step is on (the recorder's stepper); without it, the request
 * goes as it is. Skip throws StepSkipped (the caller fails as if no answer came); abort throws a
 * FlowError, and every later stop of the command is aborted too.
 */
export async function holdRequest(
  har: { stepper?: Stepper | undefined; secrets: ReadonlySet<string> } | undefined,
  step: string,
  title: string,
  request: OutgoingRequest,
  note?: string,
): Promise<{ request: OutgoingRequest; edits: string[] }> {
  const stepper = har?.stepper;
  if (stepper === undefined) return { request, edits: [] };
  const fields = fieldsOf(request, har?.secrets);
  // --show-secrets: the person sees every value and may change any; otherwise a secret is shown redacted and kept.
  const shown = stepper.showSecrets ? fields.map((f) => ({ ...f, secret: false })) : fields.map((f) => (f.secret ? { ...f, value: REDACTED_MARK } : f));
  const answer = await stepper.ask({
    step,
    title,
    method: request.method,
    url: shown.some((f) => f.place === 'query' && f.secret) ? redactedUrl(request.url, shown) : request.url,
    fields: shown,
    ...(note !== undefined ? { note } : {}),
  });
  if (answer.action === 'abort') {
    // Code that tolerates a failed request (discovery trying its next address) must not ask again.
    har!.stepper = ABORTED;
    throw new FlowError(`aborted before the ${title} (--step)`, 'nothing more was sent');
  }
  if (answer.action === 'skip') throw new StepSkipped(`the ${title} was skipped (--step): not sent`, 'the flow cannot go on without its answer');
  // A secret shown redacted comes back as it went out: only its owner (--show-secrets) may change it.
  const kept = answer.fields.map((f) => {
    if (!f.secret) return f;
    const was = fields.find((o) => o.place === f.place && o.name === f.name);
    return was && f.value === REDACTED_MARK ? { ...f, value: was.value } : f;
  });
  const edits = describeEdits(fields, kept);
  return { request: edits.length === 0 ? request : requestOf(request, kept), edits };
}

function redactedUrl(url: string, fields: readonly StepField[]): string {
  const u = new URL(url);
  u.search = new URLSearchParams(fields.filter((f) => f.place === 'query').map((f): [string, string] => [f.name, f.value])).toString();
  return u.href;
}

/** The stepper once the person has aborted: every later stop aborts without asking. */
const ABORTED: Stepper = { showSecrets: false, ask: async () => ({ action: 'abort' }) };

/** What a secret field shows in place of its value on the page and the terminal. */
export const REDACTED_MARK = '[redacted]';

function isForm(headers: readonly [string, string][]): boolean {
  return headers.some(([n, v]) => n.toLowerCase() === 'content-type' && FORM.test(v));
}

/** What each stop is, and the section of the specification that says so. */
export const STEP_TITLES: Readonly<Record<string, string>> = {
  discovery: 'discovery request (RFC 8414 section 3, OpenID Connect Discovery 1.0 section 4)',
  jwks: 'key set request (RFC 7517 section 5, RFC 8414 section 2 jwks_uri)',
  par: 'pushed authorization request (RFC 9126 section 2)',
  authorization: 'authorization request (RFC 6749 section 4.1.1)',
  login: 'login page request',
  callback: 'redirect back to the client (RFC 6749 section 4.1.2)',
  token: 'token request (RFC 6749 section 4.1.3)',
  refresh: 'refresh request (RFC 6749 section 6)',
  'client-credentials': 'client credentials request (RFC 6749 section 4.4.2)',
  'token-exchange': 'token exchange request (RFC 8693 section 2.1)',
  'device-authorization': 'device authorization request (RFC 8628 section 3.1)',
  registration: 'registration request (RFC 7591 section 3.1)',
  introspection: 'introspection request (RFC 7662 section 2.1)',
  revocation: 'revocation request (RFC 7009 section 2.1)',
  userinfo: 'UserInfo request (OpenID Connect Core 1.0 section 5.3.1)',
  'end-session': 'logout request (OpenID Connect RP-Initiated Logout 1.0 section 2)',
  resource: 'call to the resource (RFC 6750 section 2)',
};
