import { FLOW_STEPS } from './har.js';
import { requestParams, responseParams, type TraceEntry, type TraceFile } from './har-read.js';
import { REQUEST_PARAMS, RESPONSE_PARAMS, type Lifeline, type SequenceDiagram, type SequenceMessage } from './sequence-diagram.js';

const MAX_LIFELINES = 8;
const OTHERS = 'other servers';

/** The steps that go to an authorization server: all but the listener's callback and a resource's call. */
const SERVER_STEPS: ReadonlySet<string> = new Set(FLOW_STEPS.filter((step) => step !== 'callback' && step !== 'resource'));

/** An exchange drawn: its place in the file, and its number on the page (1, 2, 3... with no gap). */
export interface DrawnEntry {
  entry: TraceEntry;
  index: number;
  number: number;
}

/**
 * The exchanges drawn: a redirect the headless agent delivered is drawn once, as the listener saw it.
 * They are numbered in the order drawn, so that the count the page gives and the numbers agree.
 */
export function drawnEntries(file: TraceFile): DrawnEntry[] {
  const seenByListener = new Set(file.entries.filter((e) => e.actor === 'listener').map((e) => `${e.method} ${e.url}`));
  return file.entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => !(entry.actor === 'user-agent' && entry.step === 'callback' && seenByListener.has(`${entry.method} ${entry.url}`)))
    .map((drawn, at) => ({ ...drawn, number: at + 1 }));
}

/** The number on the page of each entry of the file; a redirect drawn once has its listener's number. */
export function exchangeNumbers(file: TraceFile): Map<number, number> {
  const drawn = drawnEntries(file);
  const numbers = new Map(drawn.map(({ index, number }) => [index, number]));
  const listenerNumber = new Map(drawn.filter(({ entry }) => entry.actor === 'listener').map(({ entry, number }) => [`${entry.method} ${entry.url}`, number]));
  file.entries.forEach((e, i) => {
    if (!numbers.has(i)) numbers.set(i, listenerNumber.get(`${e.method} ${e.url}`) ?? 0);
  });
  return numbers;
}

/** Whether an exchange failed: no response, a status of 400 or more, or an OAuth `error` in the answer. */
export function entryFailed(e: TraceEntry): boolean {
  if (e.handoff) return false;
  if (e.status === 0 || e.status >= 400) return true;
  if (e.step === 'callback') return requestParams(e).has('error');
  return responseParams(e).has('error');
}

/** A HAR's exchanges as a sequence diagram: one request arrow and one response arrow each. */
export function traceDiagram(file: TraceFile): SequenceDiagram {
  const lifelines: Lifeline[] = [];
  const index = new Map<string, number>();
  const lifeline = (role: string, host?: string): number => {
    const key = `${role} ${host ?? ''}`;
    let i = index.get(key);
    // A file that names many servers (or a hostile one) still draws in a readable width.
    if (i === undefined && lifelines.length >= MAX_LIFELINES - 1 && role !== OTHERS) return lifeline(OTHERS);
    if (i === undefined) {
      i = lifelines.push({ role, host }) - 1;
      index.set(key, i);
    }
    return i;
  };
  const drawn = drawnEntries(file);
  // The user agent first, the client next, then the servers in the order they appear.
  if (drawn.some(({ entry }) => entry.actor !== 'client' || entry.handoff)) lifeline('user agent');
  lifeline('client');
  const messages: SequenceMessage[] = [];
  const handedOff = new Set<string>();
  for (const { entry, number } of drawn) {
    const url = parse(entry.url);
    const host = url?.host;
    const ref = `x${number}`;
    const params = requestParams(entry);
    // The user agent's request to a URL the client just sent it to: its parameters were shown on that arrow.
    const shown = handedOff.has(entry.url) && entry.actor === 'user-agent' ? [] : REQUEST_PARAMS.filter((p) => params.has(p)).map((p) => `${p}=${params.get(p)}`);
    if (entry.handoff) {
      handedOff.add(entry.url);
      // RFC 6749 section 4.1 (A): the client sends the user agent to the authorization endpoint.
      messages.push({ from: lifeline('client'), to: lifeline('user agent'), label: `send to ${url ? url.pathname : entry.url}`, params: shown, reply: false, failed: false, ref, step: entry.step });
      continue;
    }
    const from = entry.actor === 'client' ? lifeline('client') : lifeline('user agent');
    const to =
      entry.actor === 'listener' || (entry.actor === 'user-agent' && entry.step === 'callback')
        ? lifeline('client')
        : SERVER_STEPS.has(entry.step)
          ? lifeline('authorization server', host)
          : lifeline('resource', host);
    const failed = entryFailed(entry);
    messages.push({
      from,
      to,
      label: `${entry.method} ${url ? url.pathname : entry.url}`,
      params: shown,
      reply: false,
      failed: false,
      ref,
      step: entry.step,
    });
    const answer = responseParams(entry);
    const location = entry.responseHeaders.find((h) => h.name.toLowerCase() === 'location')?.value;
    messages.push({
      from: to,
      to: from,
      label: entry.status === 0 ? `no response${entry.error ? `: ${entry.error}` : ''}` : `${entry.status}${location ? ` -> ${shortUrl(location, entry.url)}` : ''}`,
      params: RESPONSE_PARAMS.filter((p) => answer.has(p)).map((p) => `${p}=${answer.get(p)}`),
      reply: true,
      failed,
      ref,
      step: entry.step,
    });
  }
  return { lifelines, messages };
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function shortUrl(location: string, base: string): string {
  try {
    const url = new URL(location, base);
    return `${url.host}${url.pathname}`;
  } catch {
    return location;
  }
}
