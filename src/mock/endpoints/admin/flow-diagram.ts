import { REQUEST_PARAMS, type Lifeline, type SequenceDiagram, type SequenceMessage } from '../../../output/sequence-diagram.js';
import type { RecordedRequest } from '../../core/http/request-log.js';

/** The endpoints a browser visits (pages); the others are called by the client, `api` being the resource. */
const USER_AGENT_ENDPOINTS: ReadonlySet<string> = new Set(['authorize', 'login', 'consent', 'device', 'logout']);

const USER_AGENT = 0;
const CLIENT = 1;
const SERVER = 2;
const RESOURCE = 3;

/**
 * A flow of the mock's request log as a sequence diagram, drawn by the same code as `oauthctl trace`
 * (src/output/sequence-svg.ts): the server sees only the requests that reached it, so the redirect to
 * the client shows as the authorization server's answer.
 */
export function flowDiagram(steps: readonly RecordedRequest[], issuerHost: string): SequenceDiagram {
  const lifelines: Lifeline[] = [{ role: 'user agent' }, { role: 'client' }, { role: 'authorization server', host: issuerHost }];
  if (steps.some((s) => s.endpoint === 'api')) lifelines.push({ role: 'resource', host: issuerHost });
  const messages: SequenceMessage[] = steps.flatMap((s, i): SequenceMessage[] => {
    const from = USER_AGENT_ENDPOINTS.has(s.endpoint ?? '') ? USER_AGENT : CLIENT;
    const to = s.endpoint === 'api' ? RESOURCE : SERVER;
    const params = new URLSearchParams(s.query);
    for (const [k, v] of new URLSearchParams(s.form ?? '')) params.append(k, v);
    const ref = `step-${s.id}`;
    const failed = s.status >= 400 || s.error !== undefined;
    return [
      { from, to, label: `${s.method} ${s.path}`, params: REQUEST_PARAMS.filter((p) => params.has(p)).map((p) => `${p}=${params.get(p)}`), reply: false, failed: false, ref, step: s.endpoint },
      { from: to, to: from, label: `${s.status} ${s.outcome}`, params: s.error !== undefined ? [`error=${s.error}`] : [], reply: true, failed, ref, step: s.endpoint ?? `${i}` },
    ];
  });
  return { lifelines, messages };
}
