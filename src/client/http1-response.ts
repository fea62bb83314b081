import { hasBadFieldChar, isToken, parseDigits, trimOws } from '../oauth/http-syntax.js';
import { ResponseTooLarge } from './http-transport.js';

/**
 * Reads one HTTP/1.1 response from the bytes of a connection as they arrive (RFC 9112): the status
 * line, the fields, and the body as the response frames it. Strict where a lenient reader would let a
 * hostile server smuggle or stall: bounded head, bounded body, no bare LF, no control characters in
 * a field, one Content-Length.
 */

/** The size of a response's head (status line and fields), as node:http allows by default. */
export const MAX_HEAD_BYTES = 16 * 1024;

export interface ReadResponse {
  status: number;
  /** Lower-case names; repeated fields joined with ", " (set-cookie with "\n"), as node:http joins them. */
  headers: Record<string, string>;
  body: Buffer;
  /**
   * Whether the connection may carry another request (RFC 9112 section 9.3): not after bytes the
   * response did not frame (a server that sent more than it said), which are never read as the next answer.
   */
  keepAlive: boolean;
}

/** A response that breaks HTTP/1.1's syntax: the connection cannot be trusted further. */
export class HttpParseError extends Error {
  readonly code = 'HPE_INVALID_RESPONSE';
  constructor(message: string) {
    super(`the server's response is not valid HTTP/1.1: ${message}`);
  }
}

// node:http keeps the first of these when a response repeats one (a second Content-Type is not merged).
const SINGLE_VALUED = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);
const CRLF = Buffer.from('\r\n');

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

export class ResponseReader {
  private buffered: Buffer = Buffer.alloc(0);
  private head: { status: number; headers: Record<string, string>; keepAlive: boolean; framing: Framing } | undefined;
  /** The body so far: one buffer grown by doubling, so that a body sent a byte a chunk costs no more than one sent whole. */
  private body: Buffer = Buffer.alloc(0);
  private bodyBytes = 0;
  /** Where to look for the end of the head: its start, or just before the bytes that came last. */
  private scanFrom = 0;
  /** In a chunked body: the bytes of the current chunk still to come, or undefined at a size line. */
  private chunkLeft: number | undefined;
  private inTrailers = false;
  private trailerBytes = 0;
  /** Whether any byte of a response has come (a connection closed before one is a request never answered). */
  started = false;

  constructor(
    private readonly method: string,
    private readonly maxBodyBytes: number,
  ) {}

  /** Takes the next bytes; the response once it is complete, else undefined. Throws HttpParseError or ResponseTooLarge. */
  push(data: Buffer): ReadResponse | undefined {
    if (data.length > 0) this.started = true;
    this.buffered = this.buffered.length === 0 ? data : Buffer.concat([this.buffered, data]);
    while (this.head === undefined) {
      const end = this.buffered.indexOf('\r\n\r\n', this.scanFrom);
      if ((end < 0 ? this.buffered.length : end) > MAX_HEAD_BYTES) throw new HttpParseError(`its head is larger than ${MAX_HEAD_BYTES} bytes`);
      if (end < 0) {
        this.scanFrom = Math.max(0, this.buffered.length - 3);
        return undefined;
      }
      this.scanFrom = 0;
      const text = this.buffered.subarray(0, end).toString('latin1');
      this.buffered = this.buffered.subarray(end + 4);
      this.head = this.parseHead(text);
    }
    return this.readBody();
  }

  /** The connection closed: the response if its body runs to the close, else an error. */
  end(): ReadResponse {
    if (this.head?.framing.kind === 'close') return this.done(false);
    throw Object.assign(new Error(this.started ? 'the server closed the connection mid-response' : 'socket hang up'), { code: 'ECONNRESET' });
  }

  /** The response as read so far, once its head has come: for a caller that stops reading before the end. */
  partial(): ReadResponse | undefined {
    return this.head === undefined ? undefined : { status: this.head.status, headers: this.head.headers, body: this.body.subarray(0, this.bodyBytes), keepAlive: false };
  }

  /** Bytes after the response (a server that sent more than it framed). */
  get leftover(): number {
    return this.buffered.length;
  }

  private parseHead(text: string): ResponseReader['head'] {
    const lines = text.split('\r\n');
    if (lines.some((l) => l.includes('\n') || l.includes('\r'))) throw new HttpParseError('a line ends without CRLF');
    // RFC 9112 section 4: HTTP-version SP status-code SP [ reason-phrase ].
    const first = lines[0]!;
    const minor = first.charCodeAt(7) - 0x30;
    const status = parseDigits(first.slice(9, 12), 10, 3);
    const statusLineOk =
      first.startsWith('HTTP/1.') && (minor === 0 || minor === 1) && first[8] === ' ' && status !== undefined && (first.length === 12 || (first[12] === ' ' && !hasBadFieldChar(first.slice(13))));
    if (!statusLineOk) throw new HttpParseError('the status line is not "HTTP/1.x NNN reason"');
    const fields: [string, string][] = [];
    for (const line of lines.slice(1)) {
      // RFC 9112 section 5.2: a user agent replaces an obs-fold with SP.
      if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) {
        const last = fields[fields.length - 1]!;
        last[1] = trimOws(`${last[1]} ${trimOws(line)}`);
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon) : '';
      if (!isToken(name)) throw new HttpParseError('a header line has no valid field name');
      const value = trimOws(line.slice(colon + 1));
      if (hasBadFieldChar(value)) throw new HttpParseError(`the ${name} field has a control character`);
      fields.push([name.toLowerCase(), value]);
    }
    // RFC 9110 section 15.2: interim responses (100 Continue, 103 Early Hints) come before the final one.
    if (status >= 100 && status < 200) {
      if (status === 101) throw new HttpParseError('the server switched protocols (101) unasked');
      return undefined;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of fields) {
      const had = headers[name];
      if (had === undefined) headers[name] = value;
      else if (name === 'set-cookie') headers[name] = `${had}\n${value}`;
      else if (name !== 'content-length' && !SINGLE_VALUED.has(name)) headers[name] = `${had}, ${value}`;
    }
    const connection = (headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((t) => t.trim());
    let keepAlive = minor === 1 ? !connection.includes('close') : connection.includes('keep-alive');
    const framing = this.framingOf(status, fields);
    if (framing.kind === 'close') keepAlive = false;
    return { status, headers, keepAlive, framing };
  }

  /** RFC 9112 section 6.3: how a response's body ends. */
  private framingOf(status: number, fields: [string, string][]): Framing {
    if (this.method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' };
    const codings = fields.filter(([n]) => n === 'transfer-encoding').flatMap(([, v]) => v.split(',').map((c) => c.trim().toLowerCase()));
    // A Transfer-Encoding overrides any Content-Length; a body not ending in chunked runs to the close.
    if (codings.length > 0) return codings[codings.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
    const lengths = new Set(fields.filter(([n]) => n === 'content-length').flatMap(([, v]) => v.split(',').map((c) => c.trim())));
    if (lengths.size === 0) return { kind: 'close' };
    const [length] = lengths;
    const left = lengths.size === 1 ? parseDigits(length!, 10, 15) : undefined;
    if (left === undefined) throw new HttpParseError('its Content-Length is not one number');
    if (left > this.maxBodyBytes) throw new ResponseTooLarge(this.maxBodyBytes);
    return left === 0 ? { kind: 'none' } : { kind: 'length', left };
  }

  private readBody(): ReadResponse | undefined {
    const framing = this.head!.framing;
    if (framing.kind === 'none') return this.done(this.head!.keepAlive);
    if (framing.kind === 'close') {
      this.take(this.buffered.length);
      return undefined;
    }
    if (framing.kind === 'length') {
      const n = Math.min(framing.left, this.buffered.length);
      this.take(n);
      framing.left -= n;
      return framing.left === 0 ? this.done(this.head!.keepAlive) : undefined;
    }
    return this.readChunks();
  }

  /** RFC 9112 section 7.1: chunk-size [ chunk-ext ] CRLF chunk-data CRLF, ..., 0 CRLF, trailers, CRLF. */
  private readChunks(): ReadResponse | undefined {
    for (;;) {
      if (this.inTrailers) {
        const eol = this.buffered.indexOf(CRLF);
        if (this.trailerBytes + (eol < 0 ? this.buffered.length : eol) > MAX_HEAD_BYTES) throw new HttpParseError(`its trailer is larger than ${MAX_HEAD_BYTES} bytes`);
        if (eol < 0) return undefined;
        this.trailerBytes += eol + 2;
        this.buffered = this.buffered.subarray(eol + 2);
        if (eol === 0) return this.done(this.head!.keepAlive);
        continue;
      }
      if (this.chunkLeft === undefined) {
        const eol = this.buffered.indexOf(CRLF);
        if (eol < 0) {
          if (this.buffered.length > 1024) throw new HttpParseError('a chunk size line is too long');
          return undefined;
        }
        // chunk-size [ BWS ";" chunk-ext ]: the extensions are read past, never used.
        const line = this.buffered.subarray(0, eol).toString('latin1');
        const ext = line.indexOf(';');
        const n = parseDigits(trimOws(ext < 0 ? line : line.slice(0, ext)), 16, 8);
        if (n === undefined || line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09 || hasBadFieldChar(line)) throw new HttpParseError('a chunk size is not hexadecimal');
        this.buffered = this.buffered.subarray(eol + 2);
        if (n === 0) {
          this.inTrailers = true;
          continue;
        }
        if (this.bodyBytes + n > this.maxBodyBytes) throw new ResponseTooLarge(this.maxBodyBytes);
        this.chunkLeft = n;
      }
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, this.buffered.length);
        this.take(n);
        this.chunkLeft -= n;
        if (this.chunkLeft > 0) return undefined;
      }
      if (this.buffered.length < 2) return undefined;
      if (this.buffered[0] !== 0x0d || this.buffered[1] !== 0x0a) throw new HttpParseError('a chunk does not end with CRLF');
      this.buffered = this.buffered.subarray(2);
      this.chunkLeft = undefined;
    }
  }

  private take(n: number): void {
    if (n === 0) return;
    const size = this.bodyBytes + n;
    if (size > this.maxBodyBytes) throw new ResponseTooLarge(this.maxBodyBytes);
    if (this.bodyBytes === 0) {
      // The first piece is kept as it came (most answers come whole): copied only when a second one follows.
      this.body = this.buffered.subarray(0, n);
      this.bodyBytes = n;
      this.buffered = this.buffered.subarray(n);
      return;
    }
    if (size > this.body.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.maxBodyBytes, Math.max(4096, 2 * this.body.length, size)));
      this.body.copy(grown, 0, 0, this.bodyBytes);
      this.body = grown;
    }
    this.buffered.copy(this.body, this.bodyBytes, 0, n);
    this.bodyBytes = size;
    this.buffered = this.buffered.subarray(n);
  }

  private done(keepAlive: boolean): ReadResponse {
    const { status, headers } = this.head!;
    return { status, headers, body: this.body.subarray(0, this.bodyBytes), keepAlive: keepAlive && this.buffered.length === 0 };
  }
}
