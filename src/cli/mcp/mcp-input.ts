import { FlowError, UsageError } from '../../errors.js';
import { isJsonObject, JsonDepthError, parseJson } from '../../oauth/json.js';
import { describeInput, withElicitationDefaults, type InputRequest } from '../../oauth/mcp-input.js';
import type { IO } from '../../output/io.js';
import { readValueOrFile } from './mcp-params.js';

/** --input JSON|@FILE: a JSON object, each value the response to the input request of its key, as sent on the wire. */
export async function parseInput(value: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (value === undefined) return undefined;
  const text = await readValueOrFile(value, '--input');
  let parsed: unknown;
  try {
    parsed = parseJson(text, '--input');
  } catch (err) {
    if (err instanceof JsonDepthError) throw new UsageError(err.message, 'flatten the input');
    throw new UsageError('--input is not JSON', `e.g. --input '{"elicitation/create": {"action": "accept", "content": {"name": "Alice"}}}' or --input @FILE`);
  }
  if (!isJsonObject(parsed)) throw new UsageError('--input must be a JSON object: the key of each input request, and its response', `e.g. --input '{"confirm": {"action": "accept", "content": {}}}'`);
  return parsed;
}

/**
 * The response to one input request: from --input (an elicitation's content completed with its
 * schema's defaults, SEP-1034), else asked on a terminal (an elicitation only), else a FlowError
 * naming what the server asked.
 */
export async function answerInput(request: InputRequest, input: Record<string, unknown> | undefined, io: IO, json: boolean | undefined): Promise<unknown> {
  const given = input?.[request.key];
  if (given !== undefined) return request.method === 'elicitation/create' && isJsonObject(given) ? withElicitationDefaults(given, request.params) : given;
  if (request.method === 'elicitation/create' && io.stdin.isTTY === true && json !== true) return askElicitation(request, io);
  throw new FlowError(
    `the MCP server asks for input that was not given: ${describeInput(request)}`,
    `answer it with --input '{${JSON.stringify(request.key)}: {"action": "accept", "content": {...}}}' (the response as sent on the wire)`,
  );
}

/** An elicitation asked on the terminal: accept or decline, then each field of its schema (its default offered). */
async function askElicitation(request: InputRequest, io: IO): Promise<unknown> {
  const { default: ask } = await import('prompts');
  const streams = { stdin: io.stdin, stdout: io.stderr };
  let cancelled = false;
  const one = async (question: Record<string, unknown>): Promise<unknown> => {
    const answers = await ask({ ...question, name: 'value', ...streams } as Parameters<typeof ask>[0], { onCancel: () => void (cancelled = true) });
    if (cancelled) throw new UsageError('cancelled at the prompt', 'answer the server with --input instead');
    return answers.value;
  };
  const message = typeof request.params.message === 'string' ? request.params.message.slice(0, 500) : request.method;
  const accept = await one({ type: 'confirm', message: `The MCP server asks: ${message.replace(/[\p{Cc}\p{Cf}]/gu, ' ')} Answer it?`, initial: true });
  if (accept !== true) return { action: 'decline' };
  const schema = request.params.requestedSchema;
  const content: Record<string, unknown> = {};
  const properties = isJsonObject(schema) && isJsonObject(schema.properties) ? schema.properties : {};
  for (const [field, property] of Object.entries(properties)) {
    if (!isJsonObject(property)) continue;
    const label = (typeof property.title === 'string' ? property.title : field).replace(/[\p{Cc}\p{Cf}]/gu, ' ').slice(0, 100);
    const initial = property.default;
    if (property.type === 'boolean') content[field] = await one({ type: 'confirm', message: label, initial: initial === true });
    else if (property.type === 'integer' || property.type === 'number') content[field] = await one({ type: 'number', message: label, initial, float: property.type === 'number' });
    else if (Array.isArray(property.enum)) content[field] = await one({ type: 'select', message: label, choices: property.enum.map((v) => ({ title: String(v), value: v })) });
    else content[field] = await one({ type: 'text', message: label, initial: typeof initial === 'string' ? initial : '' });
  }
  return { action: 'accept', content };
}
