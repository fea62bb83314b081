import type { IncomingHttpHeaders } from 'node:http';

/** How many requests the log keeps: a ring buffer, so memory stays flat however long the mock runs. */
export const REQUEST_LOG_SIZE = 1000;
/** A query string or form body longer than this is kept cut short (and marked so). */
const MAX_KEPT_CHARS = 8 * 1024;

/** One request as the log keeps it: the raw text, parsed only when someone reads the log. */
export interface RecordedRequest {
  id: number;
  /** The mock's clock, in milliseconds. */
  time: number;
  method: string;
  path: string;
  /** The endpoint's name as faults are queued for it (`token`, `api`, ...), or undefined. */
  endpoint: string | undefined;
  query: string;
  /** The form body, when the request had one. */
  form: string | undefined;
  /** Any other body the endpoint read, as text. */
  body: string | undefined;
  headers: IncomingHttpHeaders;
  status: number;
  clientId: string | undefined;
  outcome: string;
  error: string | undefined;
  errorDescription: string | undefined;
  durationMs: number;
  /** The id of the authorization request this request continues (login, consent, code exchange). */
  flow: number | undefined;
  /** A fault queued by the admin API answered it or delayed it. */
  fault: string | undefined;
}

/** The request log's JSON (GET /_mock/requests, MockServer.requests()). Secrets included: it is a mock. */
export interface MockRequest {
  id: number;
  time: string;
  method: string;
  path: string;
  endpoint?: string;
  query: Record<string, string | string[]>;
  form?: Record<string, string | string[]>;
  body?: string;
  headers: Record<string, string | string[]>;
  status: number;
  client_id?: string;
  outcome: string;
  error?: string;
  error_description?: string;
  duration_ms: number;
  flow?: number;
  fault?: string;
}

export function keptText(text: string): string {
  return text.length <= MAX_KEPT_CHARS ? text : `${text.slice(0, MAX_KEPT_CHARS)}…(cut)`;
}

/** The last REQUEST_LOG_SIZE requests, oldest first when read. */
export class RequestLog {
  private readonly ring: (RecordedRequest | undefined)[];
  private next = 0;
  private lastId = 0;
  private added = 0;

  constructor(private readonly capacity = REQUEST_LOG_SIZE) {
    this.ring = new Array<RecordedRequest | undefined>(capacity);
  }

  /** The id the next request gets (its flow id, when it is an authorization request). */
  newId(): number {
    return ++this.lastId;
  }

  /**
   * Keeps a request. Once the ring is full, the oldest slot's object takes the new fields: under load the
   * slots stay where the garbage collector has long since moved them, instead of every request's entry
   * living just long enough to be copied out of the young generation and then dying there.
   */
  add(entry: RecordedRequest): void {
    this.added++;
    const slot = this.ring[this.next];
    if (slot) Object.assign(slot, entry);
    else this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The kept requests, oldest first: copies, which later requests do not change. */
  entries(): RecordedRequest[] {
    const out: RecordedRequest[] = [];
    for (let i = 0; i < this.capacity; i++) {
      const e = this.ring[(this.next + i) % this.capacity];
      if (e) out.push({ ...e });
    }
    return out;
  }

  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.added++;
  }

  /** Grows with each request kept and each clearing: the flows page's events tell a change by it. */
  get count(): number {
    return this.added;
  }
}

/** A log entry as JSON: parameters parsed, headers as received. */
export function describeRequest(e: RecordedRequest): MockRequest {
  const out: MockRequest = {
    id: e.id,
    time: new Date(e.time).toISOString(),
    method: e.method,
    path: e.path,
    ...(e.endpoint !== undefined ? { endpoint: e.endpoint } : {}),
    query: paramsObject(e.query),
    headers: headersObject(e.headers),
    status: e.status,
    outcome: e.outcome,
    duration_ms: e.durationMs,
  };
  if (e.form !== undefined) out.form = paramsObject(e.form);
  if (e.body !== undefined) out.body = e.body;
  if (e.clientId !== undefined) out.client_id = e.clientId;
  if (e.error !== undefined) out.error = e.error;
  if (e.errorDescription !== undefined) out.error_description = e.errorDescription;
  if (e.flow !== undefined) out.flow = e.flow;
  if (e.fault !== undefined) out.fault = e.fault;
  return out;
}

/** Parameters as an object: one value as a string, a repeated parameter as an array. */
export function paramsObject(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

function headersObject(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}
