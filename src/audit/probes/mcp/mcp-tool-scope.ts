import { parseWwwAuthenticate } from '../../../oauth/www-authenticate.js';
import { formatScope } from '../../../oauth/scope.js';
import { escapeLogValue } from '../../../output/escape.js';
import { presentsAsMcp, scopedToken, workingToken } from '../../protected-resource.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { challengeScopes, listedTools, mcpCall, rpcMessage, speaksModern } from './rpc.js';

/** Why the probe runs only when asked: a tools/call does whatever the tool does. */
export const NO_TOOL_NAMED =
  'not tested: the audit calls a tool only when --call-tool names one (a tools/call does whatever the tool does): name a tool that needs more scope than the server asks for in its 401';

/** A remote text in a detail: one line, short. */
const quoted = (text: unknown) => escapeLogValue(String(text).slice(0, 120));

/**
 * MCP 2025-11-25 and 2026-07-28, authorization (scope challenge handling): a call that needs more scope
 * than the token has is answered 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="..."` naming the scopes to ask for (RFC 6750 section 3.1), so that the client can step up. Only
 * the tool the user names (--call-tool) is called, once, with a token of the scopes the server's 401
 * challenge names (else --scope): a server that checks the tool's scope refuses it before it runs.
 */
export const mcpToolScopeProbe: AuditProbe = {
  id: 'mcp-tool-scope',
  title: 'a tool that needs more scope answers 403 insufficient_scope naming it',
  rfc: 'MCP 2025-11-25 authorization (scope challenge handling); RFC 6750 §3.1',
  category: 'mcp',
  threat: 'RFC 6819 §5.1.5.1 (a token used beyond the scope it was granted)',
  remedy: 'check the scopes each tool needs before it runs; answer 403 with WWW-Authenticate: Bearer error="insufficient_scope", scope="<the scopes needed>", resource_metadata="<its metadata URL>"',
  needsFlow: true,
  async run(ctx) {
    const tool = ctx.toolCall;
    if (tool === undefined) return skip(NO_TOOL_NAMED);
    const working = await workingToken(ctx);
    if (!presentsAsMcp(ctx)) return skip('not tested: not an MCP server (it takes its token on a GET)');
    const modern = await speaksModern(ctx, working);
    // The tool must be there for the audit's own token (a server that filters tools/list by scope may hide it: then say so).
    const listed = await listedTools(ctx, working, modern);
    if (listed !== undefined && !listed.some((t) => (t as { name?: unknown } | null)?.name === tool.name))
      return skip(`not tested: tools/list does not list ${quoted(tool.name)} (the tool --call-tool names)`);
    const base = await challengeScopes(ctx);
    const { token, granted } = await scopedToken(ctx, { scopes: base.length > 0 ? base : ctx.config.scopes });
    const has = granted === undefined ? 'a token' : `a token of scope "${formatScope(granted)}"`;
    const { res, step } = await mcpCall(ctx, token, 'tools/call', { name: tool.name, arguments: tool.arguments }, modern);
    const what = `tools/call ${quoted(tool.name)} with ${has}`;
    if (step !== 'tools/call') {
      if (res.status >= 500) return fail(`${step} with ${has} got HTTP ${res.status}: a server error is no answer about the token`);
      return skip(`not tested: ${step} with ${has} got HTTP ${res.status}, before any tool: the server needs more than its 401 asks for`);
    }
    if (res.status >= 500) return fail(`${what} got HTTP ${res.status}: a server error is no scope challenge (MCP: 403 insufficient_scope naming the scope)`);
    const message = rpcMessage(res);
    if (res.status >= 200 && res.status < 300) {
      if (message?.result !== undefined) return fail(`${what} ran (HTTP ${res.status}, a result): the tool's scope is not checked, or it needs no more than that (name one that does)`);
      const error = message?.error as { code?: unknown; message?: unknown } | undefined;
      if (error !== undefined) return fail(`${what}: a JSON-RPC error in HTTP ${res.status} (${quoted(error.code)}: ${quoted(error.message)}), not HTTP 403 insufficient_scope`);
      return fail(`${what}: HTTP ${res.status} without a JSON-RPC answer, not 403 insufficient_scope`);
    }
    const challenge = parseWwwAuthenticate(res.headers['www-authenticate'] ?? '').find((c) => /^(bearer|dpop)$/i.test(c.scheme))?.params ?? {};
    if (res.status !== 403 || challenge.error !== 'insufficient_scope')
      return fail(`${what}: HTTP ${res.status}${challenge.error ? ` error=${quoted(challenge.error)}` : ''}, not 403 insufficient_scope`);
    const asked = (challenge.scope ?? '').split(' ').filter(Boolean);
    if (asked.length === 0) return fail(`${what}: 403 insufficient_scope, but its challenge names no scope to ask for (scope="<the scopes needed>")`);
    if (granted !== undefined && asked.every((s) => granted.includes(s)))
      return fail(`${what}: 403 insufficient_scope naming only scopes the token has (scope="${quoted(challenge.scope)}"): a client cannot step up from it`);
    return pass(
      `${what}: 403 insufficient_scope, scope="${quoted(challenge.scope)}"${challenge.resource_metadata === undefined ? ' (without resource_metadata, which MCP asks for as in its 401)' : ''}`,
    );
  },
};
