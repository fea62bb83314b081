import { describe, expect, it } from 'vitest';
import { chooseScope } from '../../../src/client/mcp/client-identity.js';

describe('the scope an MCP client asks for (Scope Selection Strategy)', () => {
  it("takes the challenge's scope first, else the resource's scopes_supported, else none", () => {
    expect(chooseScope('mcp:basic', ['a', 'b'], undefined).scopes).toEqual(['mcp:basic']);
    expect(chooseScope(undefined, ['a', 'b'], undefined).scopes).toEqual(['a', 'b']);
    expect(chooseScope(undefined, undefined, undefined)).toEqual({ scopes: [], from: 'neither the challenge nor the resource metadata names one' });
    expect(chooseScope(undefined, [], ['offline_access']).scopes).toEqual([]);
  });

  it('adds offline_access only where the authorization server lists it (SEP-2207)', () => {
    expect(chooseScope('mcp:basic', undefined, ['mcp:basic', 'offline_access']).scopes).toEqual(['mcp:basic', 'offline_access']);
    expect(chooseScope('mcp:basic', undefined, ['mcp:basic', 'mcp:read']).scopes).toEqual(['mcp:basic']);
    expect(chooseScope('mcp:basic offline_access', undefined, ['offline_access']).scopes).toEqual(['mcp:basic', 'offline_access']);
  });
});
