import { isSubmitButton, type FormField, type HtmlForm, type HtmlLink, type HtmlPage } from './page.js';

/**
 * What the headless user agent does on a page: fill and submit the login form, answer the consent
 * question, submit a form a script would have submitted, follow a meta refresh, or give up.
 */
export type ConsentDecision = 'approve' | 'deny';

export interface Credentials {
  username: string;
  password: string;
}

/** A field as sent, for the trace: secret values are redacted there. */
export interface FilledField {
  name: string;
  value: string;
  role: 'username' | 'password' | 'button' | 'hidden' | 'kept';
}

export interface FormSubmission {
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  fields: FilledField[];
}

export type PageAction =
  | { kind: 'login'; form: HtmlForm; button?: FormField | undefined; submission: FormSubmission; hasUsername: boolean }
  | { kind: 'identifier'; form: HtmlForm; button?: FormField | undefined; submission: FormSubmission }
  | { kind: 'consent'; decision: ConsentDecision; form: HtmlForm; button: FormField; submission: FormSubmission }
  | { kind: 'consent-link'; decision: ConsentDecision; link: HtmlLink }
  | { kind: 'auto-submit'; form: HtmlForm; submission: FormSubmission }
  | { kind: 'refresh'; url: string }
  | { kind: 'stuck'; reason: 'needs-javascript' | 'no-form' | 'no-decision'; detail: string };

const TEXT_TYPES = new Set(['text', 'email', 'tel', '']);
const DENY = /\b(deny|cancel|reject|decline|refuse|abort|disallow|no|don'?t allow|do not allow|not now)\b/i;
const APPROVE = /\b(allow|accept|approve|authori[sz]e|grant|yes|continue|consent|confirm|agree|ok|proceed)\b/i;
const USERNAME_NAME = /user|login|e-?mail|account|ident|uid|principal/i;
const USERNAME_LABEL = /user|e-?mail|login|account|sign.?in|identifier|name/i;

/** The answer a control's name gives to the consent question ("Allow", "Deny"), if any. */
export function classifyChoice(text: string): ConsentDecision | undefined {
  if (DENY.test(text)) return 'deny';
  if (APPROVE.test(text)) return 'approve';
  return undefined;
}

/** What a submit button says: its text, or its value, or its name, whichever names the choice. */
export function classifyButton(button: FormField): ConsentDecision | undefined {
  for (const text of [button.text, button.value, button.label, button.name]) {
    const choice = text ? classifyChoice(text) : undefined;
    if (choice) return choice;
  }
  return undefined;
}

function classifyLink(link: HtmlLink): ConsentDecision | undefined {
  return classifyChoice(link.text);
}

function isUsable(field: FormField): boolean {
  return !field.disabled;
}

function passwordField(form: HtmlForm): FormField | undefined {
  const passwords = form.fields.filter((f) => f.tag === 'input' && f.type === 'password' && isUsable(f));
  return passwords.find((f) => f.autocomplete.includes('current-password')) ?? passwords.find((f) => !f.autocomplete.includes('new-password')) ?? passwords[0];
}

/** Scores a text input as the account-name field: autocomplete, then name/id, then label text; -1 for no text input. */
export function usernameScore(field: FormField): number {
  if (field.tag !== 'input' || !TEXT_TYPES.has(field.type) || !isUsable(field)) return -1;
  let score = 0;
  if (/\b(username|email)\b/.test(field.autocomplete)) score += 10;
  if (USERNAME_NAME.test(field.name) || USERNAME_NAME.test(field.id)) score += 5;
  if (USERNAME_LABEL.test(field.label)) score += 3;
  if (field.type === 'email') score += 2;
  return score;
}

function usernameField(form: HtmlForm, password: FormField | undefined): FormField | undefined {
  let best: FormField | undefined;
  let bestScore = 0;
  for (const field of form.fields) {
    const score = usernameScore(field);
    if (score > bestScore) {
      best = field;
      bestScore = score;
    }
  }
  if (best || !password) return best;
  // No field says what it is: take the last text input before the password field.
  const before = form.fields.slice(0, form.fields.indexOf(password));
  return before.filter((f) => usernameScore(f) >= 0).pop();
}

/**
 * The fields a browser would send when `button` submits `form` (HTML "constructing the entry list"):
 * named, enabled controls; checkboxes and radios only when checked; of the buttons only the one used.
 */
export function buildSubmission(form: HtmlForm, button: FormField | undefined, values: ReadonlyMap<FormField, FilledField['role']>, credentials?: Credentials): FormSubmission {
  const fields: FilledField[] = [];
  for (const field of form.fields) {
    if (!field.name || field.disabled) continue;
    if (field.tag === 'button' || isSubmitButton(field) || ['reset', 'button', 'file', 'image'].includes(field.type)) {
      if (field === button) fields.push({ name: field.name, value: field.value, role: 'button' });
      continue;
    }
    if ((field.type === 'checkbox' || field.type === 'radio') && !field.checked) continue;
    const role = values.get(field);
    let value = field.type === 'checkbox' || field.type === 'radio' ? field.value || 'on' : field.value;
    if (role === 'username') value = credentials?.username ?? value;
    if (role === 'password') value = credentials?.password ?? value;
    fields.push({ name: field.name, value, role: role ?? (field.type === 'hidden' ? 'hidden' : 'kept') });
  }
  const method = (button?.formMethod ?? form.method).toUpperCase() === 'POST' ? 'POST' : 'GET';
  let url = form.action;
  if (button?.formAction) {
    try {
      url = new URL(button.formAction, form.action).toString();
    } catch {
      // an unusable formaction: the form's own action stays
    }
  }
  const params = new URLSearchParams(fields.map((f): [string, string] => [f.name, f.value]));
  if (method === 'GET') {
    const target = new URL(url);
    target.search = params.toString();
    target.hash = '';
    return { method, url: target.toString(), fields };
  }
  return { method, url, body: params.toString(), fields };
}

function firstSubmit(form: HtmlForm, avoid?: ConsentDecision): FormField | undefined {
  const buttons = form.fields.filter((f) => isSubmitButton(f) && isUsable(f));
  return buttons.find((b) => classifyButton(b) !== avoid) ?? (avoid ? undefined : buttons[0]);
}

/** True when `url` is the redirect URI (same origin and path; the query may differ). */
export function matchesRedirectUri(url: string | URL, redirectUri: string | URL): boolean {
  try {
    const a = new URL(url);
    const b = new URL(redirectUri);
    return a.origin === b.origin && a.pathname === b.pathname;
  } catch {
    return false;
  }
}

export interface DecideOptions {
  credentials?: Credentials | undefined;
  consent: ConsentDecision;
  redirectUri: string;
}

/** Decides what to do with a page: the core of the headless user agent, pure and testable. */
export function decidePageAction(page: HtmlPage, options: DecideOptions): PageAction {
  const { credentials, consent, redirectUri } = options;

  // A form posting to the redirect URI is response_mode=form_post: a script would submit it at once.
  const toRedirect = page.forms.find((f) => matchesRedirectUri(f.action, redirectUri));
  if (toRedirect) return { kind: 'auto-submit', form: toRedirect, submission: buildSubmission(toRedirect, undefined, new Map()) };

  for (const form of page.forms) {
    const password = passwordField(form);
    if (!password) continue;
    const username = usernameField(form, password);
    const roles = new Map<FormField, FilledField['role']>([[password, 'password']]);
    if (username) roles.set(username, 'username');
    const button = firstSubmit(form, 'deny');
    return { kind: 'login', form, button, submission: buildSubmission(form, button, roles, credentials), hasUsername: username !== undefined };
  }

  // Identifier-first login: an account-name field alone, the password comes on the next page.
  for (const form of page.forms) {
    const username = form.fields.find((f) => usernameScore(f) >= 5);
    if (!username) continue;
    const roles = new Map<FormField, FilledField['role']>([[username, 'username']]);
    const button = firstSubmit(form, 'deny');
    return { kind: 'identifier', form, button, submission: buildSubmission(form, button, roles, credentials) };
  }

  // Consent: the button (or, failing that, the link) that gives the wanted answer.
  const candidates = page.forms.flatMap((form) => form.fields.filter((f) => isSubmitButton(f) && isUsable(f)).map((button) => ({ form, button })));
  const chosen = candidates.find((c) => classifyButton(c.button) === consent);
  if (chosen) {
    return { kind: 'consent', decision: consent, form: chosen.form, button: chosen.button, submission: buildSubmission(chosen.form, chosen.button, new Map()) };
  }
  const link = page.links.find((l) => classifyLink(l) === consent);
  if (link) return { kind: 'consent-link', decision: consent, link };
  if (consent === 'approve') {
    // A single form with one button that is not a refusal ("Submit", "Sign in"): that is the way on.
    const onward = candidates.filter((c) => classifyButton(c.button) !== 'deny');
    const only = onward[0];
    if (onward.length === 1 && only) {
      return { kind: 'consent', decision: consent, form: only.form, button: only.button, submission: buildSubmission(only.form, only.button, new Map()) };
    }
  }

  // A form of hidden fields only, on a page with scripts: the script would have submitted it.
  const hiddenOnly = page.forms.find((f) => f.fields.length > 0 && f.fields.every((x) => x.type === 'hidden' || isSubmitButton(x)));
  if (hiddenOnly && page.scripts > 0) {
    return { kind: 'auto-submit', form: hiddenOnly, submission: buildSubmission(hiddenOnly, undefined, new Map()) };
  }
  if (page.metaRefresh) return { kind: 'refresh', url: page.metaRefresh };

  if (candidates.length > 0) {
    const offered = candidates.map((c) => JSON.stringify(c.button.text || c.button.value || c.button.name)).join(', ');
    return { kind: 'stuck', reason: 'no-decision', detail: `no button to ${consent} among ${offered}` };
  }
  if (page.scripts > 0) return { kind: 'stuck', reason: 'needs-javascript', detail: 'the page has no usable HTML form but has scripts' };
  return { kind: 'stuck', reason: 'no-form', detail: page.forms.length ? 'no form with a password field or a submit button' : 'the page has no form' };
}
