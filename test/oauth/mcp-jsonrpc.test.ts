import { describe, expect, it } from 'vitest';
import { findResponse, jsonRpcRequest, MAX_SSE_MESSAGES, McpFramingError, parseMcpMessages, parseSseData } from '../../src/oauth/mcp-jsonrpc.js';

describe('server-sent events (the data of each event)', () => {
  it('joins data lines, skips comments and other fields, takes CRLF and CR, drops events without data', () => {
    const body = ': keep-alive\r\nevent: message\r\nid: 7\r\ndata: {"a":\r\ndata:1}\r\n\r\nretry: 10\n\ndata: x\rdata:  y\r\r';
    expect(parseSseData(body)).toEqual(['{"a":\n1}', 'x\n y']);
  });

  it('dispatches a last event that has no blank line after it', () => {
    expect(parseSseData('data: last')).toEqual(['last']);
  });

  it('refuses a stream of more events than a client needs', () => {
    const flood = 'data: {}\n\n'.repeat(MAX_SSE_MESSAGES + 1);
    expect(() => parseSseData(flood)).toThrow(McpFramingError);
  });
});

describe('the messages of an answer', () => {
  it('reads JSON (one message or a batch) and event streams by content type', () => {
    expect(parseMcpMessages('application/json; charset=utf-8', '{"jsonrpc":"2.0","id":1,"result":{}}')).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(parseMcpMessages('application/json', '[{"id":1},{"id":2}]')).toHaveLength(2);
    expect(parseMcpMessages('text/event-stream', 'event: message\ndata: {"jsonrpc":"2.0","id":3,"result":1}\n\n')).toEqual([{ jsonrpc: '2.0', id: 3, result: 1 }]);
  });

  it('refuses another content type, a message that is not JSON, and one nested too deeply', () => {
    expect(() => parseMcpMessages('text/html', '<p>')).toThrow(/neither application\/json nor text\/event-stream/);
    expect(() => parseMcpMessages(undefined, '{}')).toThrow(/of no content type/);
    expect(() => parseMcpMessages('text/event-stream', 'data: {oops\n\n')).toThrow(/not JSON/);
    expect(() => parseMcpMessages('application/json', `${'['.repeat(500)}${']'.repeat(500)}`)).toThrow(/nests too deeply/);
  });
});

describe('the response to a request', () => {
  it('finds the one with the id, skipping requests and notifications from the server', () => {
    const messages = [
      { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
      { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage' },
      { jsonrpc: '2.0', id: 1, result: { ok: true } },
    ];
    expect(findResponse(messages, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    expect(findResponse(messages, 2)).toBeUndefined();
  });

  it('keeps an error answer as code and message, and refuses malformed answers', () => {
    expect(findResponse([{ jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'Method not found' } }], 'a')).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32601, message: 'Method not found' },
    });
    expect(() => findResponse([{ jsonrpc: '2.0', id: 1, error: { message: 'no code' } }], 1)).toThrow(McpFramingError);
    expect(() => findResponse([{ jsonrpc: '1.0', id: 1, result: 1 }], 1)).toThrow(/not JSON-RPC 2.0/);
    expect(() => findResponse([{ jsonrpc: '2.0', id: 1 }], 1)).toThrow(/neither result nor error/);
  });

  it('builds requests and notifications (a notification has no id)', () => {
    expect(jsonRpcRequest('tools/list', undefined, 4)).toEqual({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(jsonRpcRequest('notifications/initialized', undefined)).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
});
