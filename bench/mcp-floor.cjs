// The floor of mcp.bench.mjs: Node itself doing the three POSTs of an MCP session (initialize,
// notifications/initialized, tools/list) with node:http and nothing else: start-up plus the server's time.
const http = require('node:http');
const [url, token] = process.argv.slice(2);
const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` };
const post = (message, extra = {}) =>
  new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, ...extra } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end(JSON.stringify(message));
  });
(async () => {
  await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'floor', version: '1' } } });
  const v = { 'mcp-protocol-version': '2025-11-25' };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, v);
  process.stdout.write(await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, v));
})();
