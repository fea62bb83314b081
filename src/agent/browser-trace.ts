// --trace with a real browser (browser-driver.ts): the requests of Chromium's page, recorded as the
// user agent's exchanges, as the built-in headless agent's are (output/har.ts).
import type { APIResponse, Page, Request, Response } from 'playwright-core';
import { harClock, type HarRecorder } from '../output/har.js';
import { matchesRedirectUri } from './headless/forms.js';

/** What recordPage needs besides the page and the recorder. */
export interface RecordOptions {
  /** The login's redirect URI: the request to it is the last one, waited for by settled(true). */
  redirectUri?: string | undefined;
  /** Says, once, that the page made more requests than are kept. */
  warn: (line: string) => void;
  maxRecorded?: number;
  /**
   * The navigator's own answers: a request it fetched itself (the page was given that answer, or a
   * blank page in place of a redirect out of the server), or one it did not send at all (a string: why).
   */
  answerOf?: (req: Request) => APIResponse | string | undefined;
}

/** The exchanges of a page being recorded for --trace; settled() waits for those under way. */
export interface PageRecording {
  /** With `redirect`, the request to the redirect URI is waited for first (the flow has it, the events may lag). */
  settled(redirect: boolean): Promise<void>;
}

/** The resource types whose response bodies go into the trace: pages and what their scripts fetch (as the built-in agent's). */
const BODIES_KEPT = new Set(['document', 'xhr', 'fetch']);
/** A hostile page may fetch without end: the trace keeps this many of its requests, and this much of a body. */
export const MAX_RECORDED = 500;
const MAX_BODY_CHARS = 1024 * 1024;

/** A response body for the trace: none beyond MAX_BODY_CHARS is fetched from the browser or kept, and the cut is said. */
async function bodyForTrace(response: Pick<Response, 'headers' | 'text'>): Promise<string> {
  const length = Number(response.headers()['content-length']);
  if (length > MAX_BODY_CHARS) return `[oauthctl: a body of ${length} bytes, not kept]`;
  const text = await response.text().catch(() => '');
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}[oauthctl: ${text.length - MAX_BODY_CHARS} more characters not kept]` : text;
}

/**
 * --trace with --browser-driver: every request the browser's page makes (the authorization server's
 * pages, their scripts and styles, the redirect to the listener) is recorded as the user agent's, as
 * the built-in agent's requests are; the password typed into the login form is scrubbed from the file
 * like theirs. A request that got no answer is recorded with status 0 and the browser's reason.
 */
export function recordPage(page: Page, har: HarRecorder, options: RecordOptions): PageRecording {
  const { redirectUri, warn, maxRecorded = MAX_RECORDED } = options;
  let warned = false;
  /** Each request under way, and the promise of its record. */
  const underWay = new Map<Request, Promise<void>>();
  const finished = new Map<Request, (failure?: string) => void>();
  const pairs = (headers: { name: string; value: string }[]) => headers.map(({ name, value }): [string, string] => [name.toLowerCase(), value]);
  const record = async (req: Request, failure?: string) => {
    const timing = req.timing();
    const own = options.answerOf?.(req);
    // What the navigator did decides: a request it did not send was not sent, and one it fetched got the
    // server's answer, whatever the page did next (the next walk's about:blank may cancel its load).
    if (typeof own === 'string') failure = own;
    else if (own !== undefined) failure = undefined;
    // A request that failed once its answer had come (its body cut off by the next navigation) keeps
    // that answer beside the failure; one still under way is not asked for it (the answer may never come).
    const response = typeof own === 'object' ? own : typeof own === 'string' || failure === UNDER_WAY ? null : await req.response().catch(() => null);
    const body = response && BODIES_KEPT.has(req.resourceType()) ? await bodyForTrace(response) : '';
    har.record({
      actor: 'user-agent',
      startedAt: timing.startTime > 0 ? timing.startTime : harClock(),
      durationMs: Math.max(0, timing.responseEnd),
      method: req.method(),
      url: req.url(),
      // The headers as sent come with the answer; a request without one has only those Playwright saw leave.
      requestHeaders: response ? pairs(await req.headersArray()) : Object.entries(req.headers()),
      requestBody: req.postData() ?? undefined,
      status: response?.status() ?? 0,
      responseHeaders: response ? pairs(await response.headersArray()) : [],
      responseBody: body,
      error: failure ?? (response ? undefined : 'no response'),
    });
  };
  let redirectRecorded: () => void = () => undefined;
  const redirectDone = new Promise<void>((resolve) => (redirectRecorded = resolve));
  page.on('request', (req) => {
    if (underWay.size === maxRecorded) {
      if (!warned) warn(`the browser's page made more than ${maxRecorded} requests: the trace keeps the first ${maxRecorded}`);
      warned = true;
      return;
    }
    const done = new Promise<string | undefined>((resolve) => finished.set(req, resolve))
      .then((failure) => record(req, failure))
      .catch(() => undefined)
      .then(() => {
        if (redirectUri !== undefined && matchesRedirectUri(req.url(), redirectUri)) redirectRecorded();
      });
    underWay.set(req, done);
  });
  page.on('requestfinished', (req) => finished.get(req)?.());
  page.on('requestfailed', (req) => finished.get(req)?.(req.failure()?.errorText ?? 'failed'));
  return {
    // The browser's events come after the listener has the redirect (they travel through Playwright):
    // the request to the redirect URI, the last page, is waited for, a moment at most; then what is
    // under way, the same moment at most; what is still unanswered is recorded as such.
    async settled(redirect) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_MS)));
      try {
        if (redirect) await Promise.race([redirectDone, deadline]);
        await Promise.race([Promise.all(underWay.values()), deadline]);
        for (const settle of finished.values()) settle(UNDER_WAY);
        // A record that still waits on the browser then is left out rather than keeping it open.
        const last = new Promise<void>((resolve) => setTimeout(resolve, SETTLE_MS).unref());
        await Promise.race([Promise.all(underWay.values()), last]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The error of a request the browser had not finished when it was closed. */
const UNDER_WAY = 'still under way when the browser was closed';

/** How long the trace waits for the browser's last requests once the login has its redirect. */
const SETTLE_MS = 2_000;
