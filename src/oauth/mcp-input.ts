/**
 * Input the server asks of the client during a request: under 2026-07-28 an `input_required` result
 * (SEP-2322, basic/patterns/mrtr) whose `inputRequests` are answered by retrying the request with
 * `inputResponses` and the `requestState` echoed as it came; under the earlier revisions an
 * `elicitation/create` request of the server's, on the answer's event stream. Pure.
 */
import { isJsonObject } from './json.js';

/** An input request: its key in `inputRequests` (or the method, under the earlier revisions), its method and params. */
export interface InputRequest {
  key: string;
  method: string;
  params: Record<string, unknown>;
}

/** The result's kind (SEP-2322: a result without `resultType` is `complete`). */
export function resultType(result: unknown): string {
  return isJsonObject(result) && typeof result.resultType === 'string' ? result.resultType : 'complete';
}

/** The input requests of an `input_required` result, and its requestState when it has one; undefined when malformed. */
export function inputRequired(result: unknown): { requests: InputRequest[]; requestState?: string } | undefined {
  if (!isJsonObject(result) || !isJsonObject(result.inputRequests)) return undefined;
  const requests: InputRequest[] = [];
  for (const [key, value] of Object.entries(result.inputRequests)) {
    if (!isJsonObject(value) || typeof value.method !== 'string') return undefined;
    requests.push({ key, method: value.method, params: isJsonObject(value.params) ? value.params : {} });
  }
  if (result.requestState !== undefined && typeof result.requestState !== 'string') return undefined;
  return { requests, ...(typeof result.requestState === 'string' && { requestState: result.requestState }) };
}

/**
 * SEP-1034: an accepted elicitation's content takes the default the requested schema gives for each
 * field the answer leaves out.
 */
export function withElicitationDefaults(response: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
  const schema = params.requestedSchema;
  if (response.action !== 'accept' || !isJsonObject(schema) || !isJsonObject(schema.properties)) return response;
  const content: Record<string, unknown> = isJsonObject(response.content) ? { ...response.content } : {};
  for (const [field, property] of Object.entries(schema.properties)) {
    if (isJsonObject(property) && property.default !== undefined && content[field] === undefined) content[field] = property.default;
  }
  return { ...response, content };
}

/** What an input request asks, in one line for a person: its method and message. */
export function describeInput(request: InputRequest): string {
  const message = typeof request.params.message === 'string' ? `: ${JSON.stringify(request.params.message.slice(0, 200))}` : '';
  return `${request.key === request.method ? request.method : `${JSON.stringify(request.key)} (${request.method})`}${message}`;
}
