import type { IncomingHttpHeaders } from 'node:http';
import type { RequestAbort } from './http-deadline.js';

/** One request as a transport sends it; the response read whole, up to `maxBytes`. */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Stops the request at any point, the body included (the client's deadline, or the caller's signal). */
  abort: RequestAbort;
  maxBytes: number;
  /**
   * Asked after each piece of the body (the body so far): true ends the response there, the
   * connection closed (a stream whose answer has come, kept open by the server).
   */
  enough?: ((status: number, headers: Record<string, string>, body: Buffer) => boolean) | undefined;
}

export interface TransportResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: string;
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

export class ResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`response larger than ${maxBytes} bytes`);
  }
}

export function flattenHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = Array.isArray(value) ? value.join(key === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}
