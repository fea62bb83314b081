import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '../../http/server.js';
import { constantTimeEqual } from '../../oauth/pkce.js';
import { buildHar, type HarRecorder } from '../../output/har.js';
import { readHarDocument } from '../../output/har-read.js';
import { redactHar } from '../../output/har-redact.js';
import { jsonText } from '../../output/render.js';
import type { HeldRequest, StepAnswer, StepField, Stepper } from '../../output/step.js';
import { decodeJwts } from '../../output/trace-html.js';
import { LIVE_PAGE_CSP, renderHeld, renderLiveFlow, renderLivePage, type LiveState } from '../../output/trace-live.js';

/** At most this many pages listen at once; more are refused (each holds a connection). */
const MAX_LISTENERS = 8;
/** A step form is small: its parameters, edited by hand. */
const MAX_FORM_BYTES = 256 * 1024;
const MAX_FIELDS = 200;

export interface UiServer {
  /** `http://127.0.0.1:PORT/ui/TOKEN/`: the token (192 random bits) is the only way in. */
  url: string;
  /** The --step side of the page: Send, Skip, Abort. */
  stepper: Stepper;
  /** Tells the pages the command has ended, then closes every connection. */
  close(): Promise<void>;
}

export interface UiServerOptions {
  recorder: HarRecorder;
  title: string;
  showSecrets: boolean;
  version: string;
}

interface Held {
  id: string;
  request: HeldRequest;
  answer: (a: StepAnswer) => void;
}

/**
 * The `--ui` page's server: 127.0.0.1 on a free port. It answers only a request for its own Host
 * (`127.0.0.1:PORT`, against DNS rebinding), from no Origin or its own, under its unguessable path;
 * anything else is the same bare 404. A step is answered by a POST carrying the page's CSRF token and
 * the id of the request it was shown (a stale form answers nothing).
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const { recorder } = options;
  const token = randomBytes(24).toString('base64url');
  const csrf = randomBytes(24).toString('base64url');
  const prefix = `/ui/${token}/`;
  const listeners = new Set<ServerResponse>();
  let held: Held | undefined;
  let version = 0;
  let port = 0;

  const state = (): LiveState => {
    const har = buildHar(recorder, { redacted: !options.showSecrets, version: options.version });
    const file = readHarDocument(options.showSecrets ? har : redactHar(har, recorder.secrets));
    // Claims read before redaction: an ID token's are the point of the page, and without its signature it is of no use to anyone.
    const jwts = readHarDocument(har).entries.map(decodeJwts);
    return { title: options.title, file, jwts, groups: recorder.groups.length > 0 ? recorder.groups : undefined, held: held && { id: held.id, request: held.request, csrf }, status: statusLine() };
  };
  const statusLine = (): string => {
    const end = recorder.ending;
    if (end) return end.code === 0 ? 'The command finished.' : `The command failed${end.message ? `: ${end.message}` : ` (exit ${end.code})`}.`;
    return held ? `Waiting for you: ${held.request.title}.` : 'Running…';
  };

  // Each change is told to every page as one small event; a page that reads slowly gets the next one
  // once its connection has drained, so nothing piles up for it.
  const pending = new WeakSet<ServerResponse>();
  const notify = (res: ServerResponse, event: string) => {
    if (res.writableNeedDrain) {
      if (!pending.has(res)) {
        pending.add(res);
        res.once('drain', () => {
          pending.delete(res);
          notify(res, event);
        });
      }
      return;
    }
    res.write(`event: ${event}\ndata: ${version}\n\n`);
  };
  const unwatch = recorder.watch(() => {
    version++;
    for (const res of listeners) notify(res, recorder.ending ? 'end' : 'change');
  });

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const own = `127.0.0.1:${port}`;
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.headers.host !== own || (origin !== undefined && origin !== `http://${own}`) || (site !== undefined && site !== 'same-origin' && site !== 'none') || !path.startsWith(prefix)) {
      notFound(res);
      return;
    }
    const route = `${req.method ?? ''} ${path.slice(prefix.length)}`;
    if (route === 'GET ') send(res, 200, 'text/html; charset=utf-8', renderLivePage(state()));
    else if (route === 'GET state') {
      const s = state();
      send(res, 200, 'application/json', jsonText({ status: s.status, held: s.held?.id ?? '', step: renderHeld(s.held), flow: renderLiveFlow(s) }, 0));
    } else if (route === 'GET trace.har') {
      const har = buildHar(recorder, { redacted: !options.showSecrets, version: options.version });
      send(res, 200, 'application/json', `${jsonText(options.showSecrets ? har : redactHar(har, recorder.secrets))}\n`, { 'content-disposition': 'attachment; filename="oauthctl-trace.har"' });
    } else if (route === 'GET events') events(res);
    else if (route === 'POST step') await answerStep(req, res);
    else notFound(res);
  }

  function events(res: ServerResponse): void {
    if (listeners.size >= MAX_LISTENERS) {
      send(res, 503, 'text/plain; charset=utf-8', 'Too many pages open\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.write(`retry: 1000\n\n`);
    listeners.add(res);
    res.on('close', () => listeners.delete(res));
    // What changed between the page's load and this connection would be missed otherwise: the page looks once now.
    notify(res, recorder.ending ? 'end' : 'change');
  }

  async function answerStep(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) {
      notFound(res);
      return;
    }
    const body = await readLimited(req, MAX_FORM_BYTES);
    const form = new URLSearchParams(body ?? '');
    // The token is the page's: a form from anywhere else, or for a request no longer held, changes nothing.
    if (body === undefined || !constantTimeEqual(form.get('csrf') ?? '', csrf) || held === undefined || form.get('held') !== held.id) {
      send(res, 409, 'text/plain; charset=utf-8', 'That request is no longer waiting: reload the page.\n');
      return;
    }
    const action = form.get('action');
    const answer: StepAnswer | undefined =
      action === 'send' ? { action: 'send', fields: fieldsFrom(form, held.request.fields) } : action === 'skip' ? { action: 'skip' } : action === 'abort' ? { action: 'abort' } : undefined;
    if (answer === undefined) {
      send(res, 400, 'text/plain; charset=utf-8', 'Send, Skip or Abort\n');
      return;
    }
    const was = held;
    held = undefined;
    was.answer(answer);
    res.writeHead(303, { location: prefix, 'cache-control': 'no-store', 'content-length': '0' }).end();
  }

  const stepper: Stepper = {
    showSecrets: options.showSecrets,
    ask(request) {
      return new Promise<StepAnswer>((resolve) => {
        held = { id: randomBytes(9).toString('base64url'), request, answer: resolve };
        recorder.changed();
      });
    },
  };

  // A peer that sends its request slowly holds nothing for long.
  const listening = await listen(onRequest, { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
  port = listening.port;

  let closing: Promise<void> | undefined;
  return {
    url: `${listening.url}${prefix}`,
    stepper,
    close() {
      closing ??= (async () => {
        unwatch();
        held?.answer({ action: 'abort' });
        held = undefined;
        // The pages' last event (the command's end) goes out before the connections are cut; a page that
        // does not read it within a second is not waited for.
        const ended = [...listeners].map((res) => new Promise<void>((resolve) => res.end(resolve)));
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(ended), new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
        clearTimeout(timer);
        await listening.close();
      })();
      return closing;
    },
  };
}

/** The fields as the form sent them back: a secret shown read-only keeps its place and name; a removed one is dropped. */
function fieldsFrom(form: URLSearchParams, shown: readonly StepField[]): StepField[] {
  const count = Math.min(MAX_FIELDS, Number(form.get('count')) || 0);
  const fields: StepField[] = [];
  for (let i = 0; i < count; i++) {
    const original = shown[i];
    const place = form.get(`p${i}`);
    const name = form.get(`n${i}`) ?? '';
    const value = form.get(`v${i}`) ?? '';
    if (original?.secret) {
      fields.push(original);
      continue;
    }
    if (form.get(`d${i}`) === '1' || name === '' || (place !== 'query' && place !== 'form' && place !== 'header' && place !== 'body')) continue;
    fields.push({ place, name, value, secret: false });
  }
  return fields;
}

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res
    .writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      // frame-ancestors works only as a header (a <meta> CSP ignores it): no page may frame this one.
      'content-security-policy': `${LIVE_PAGE_CSP}; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      ...extra,
    })
    .end(body);
}

/** The same bare answer for a wrong path, Host or Origin: nothing about what is there. */
function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-length': '10' }).end('Not found\n');
}

async function readLimited(req: IncomingMessage, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
