/**
 * Server-sent events read as they come (HTML Living Standard 9.2.6, "Interpreting an event stream"):
 * the `data` of each complete event, the last event ID and the reconnection time (`retry`). Used by
 * `oauthctl mcp` to act on each message of a Streamable HTTP answer before the stream ends. Pure.
 */

export interface SseEvent {
  data: string;
}

export class SseParser {
  /** Bytes of the body already read: always at the start of a line. */
  private consumed = 0;
  private data: string[] | undefined;
  private id: string | undefined;
  /** The last event ID of the stream (the `id` of the last dispatched event, or an earlier one). */
  lastEventId: string | undefined;
  /** The reconnection time the server asked for, in milliseconds. */
  retryMs: number | undefined;

  /** The events completed by the body so far (the whole body, of which the earlier part was read before). */
  feed(body: Buffer): SseEvent[] {
    // Only whole lines: a line ends at LF, or at a CR not at the very end (it may be the first half of CR LF).
    let end = body.length;
    while (end > this.consumed && body[end - 1] !== 0x0a && body[end - 1] !== 0x0d) end--;
    if (end > this.consumed && body[end - 1] === 0x0d) end--;
    while (end > this.consumed && body[end - 1] !== 0x0a && body[end - 1] !== 0x0d) end--;
    if (end <= this.consumed) return [];
    const text = body.subarray(this.consumed, end).toString('utf8');
    this.consumed = end;
    const events: SseEvent[] = [];
    const lines = text.split(/\r\n|\r|\n/);
    lines.pop();
    for (const line of lines) this.line(line, events);
    return events;
  }

  /** The stream has ended: the events of the rest of the body, an unterminated last line and event included. */
  end(body: Buffer): SseEvent[] {
    const events = this.feed(body);
    const rest = body.subarray(this.consumed).toString('utf8');
    this.consumed = body.length;
    if (rest !== '') this.line(rest, events);
    this.line('', events);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.id !== undefined) this.lastEventId = this.id;
      if (this.data !== undefined) events.push({ data: this.data.join('\n') });
      this.data = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (this.data ??= []).push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d{1,9}$/.test(value)) this.retryMs = Number(value);
  }
}
