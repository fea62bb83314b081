import { UsageError } from '../../errors.js';
import { JsonDepthError, parseJson } from '../../oauth/json.js';

/** The methods that take a name (or URI) as the next argument, and the parameter it goes into. */
const NAMED: Readonly<Record<string, string>> = { 'tools/call': 'name', 'resources/read': 'uri', 'prompts/get': 'name' };

/** The method's params: the name (or URI) argument, and --arguments for a tool or prompt, else as the params themselves. */
export async function methodParams(method: string, name: string | undefined, args: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (!/^[a-zA-Z]+(\/[a-zA-Z_]+)*$/.test(method)) throw new UsageError(`${JSON.stringify(method)} is not an MCP method`, 'e.g. tools/list, tools/call NAME, resources/read URI, prompts/get NAME');
  const key = NAMED[method];
  if (key !== undefined && name === undefined)
    throw new UsageError(
      `${method} needs the ${key === 'uri' ? 'resource URI' : `${method.split('/')[0]!.slice(0, -1)} name`} as the next argument`,
      `oauthctl mcp URL ${method} ${key.toUpperCase()}`,
    );
  if (key === undefined && name !== undefined) throw new UsageError(`${method} takes no name argument, got ${JSON.stringify(name)}`, 'give the parameters with --arguments JSON');
  let parsed: Record<string, unknown> | undefined;
  if (args !== undefined) {
    const text = await readValueOrFile(args, '--arguments');
    try {
      parsed = parseJson(text, '--arguments') as Record<string, unknown>;
    } catch (err) {
      if (err instanceof JsonDepthError) throw new UsageError(err.message, 'flatten the arguments');
      throw new UsageError('--arguments is not JSON', `e.g. --arguments '{"text":"hi"}' or --arguments @FILE`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--arguments must be a JSON object', `e.g. --arguments '{"text":"hi"}'`);
  }
  if (key === undefined) return parsed;
  return { [key]: name, ...(key === 'name' && parsed !== undefined && { arguments: parsed }) };
}

/** A value, or with a leading @ the contents of that file (trimmed). */
export async function readValueOrFile(value: string, flag: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  const { readFile } = await import('node:fs/promises');
  try {
    return (await readFile(value.slice(1), 'utf8')).trim();
  } catch (err) {
    throw new UsageError(`${flag} ${value}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
