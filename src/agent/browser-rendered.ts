import type { Page } from 'playwright-core';
import { classifyChoice, usernameScore, type ConsentDecision } from './headless/forms.js';
import type { FormField } from './headless/page.js';

/**
 * The rendered page as a person sees it, for login pages built by scripts (single-page apps): the
 * visible fields, checkboxes and controls, each with its accessible name, wherever they are (in a form
 * or not; a `<button type="button">`, a link to `#`, an element with role=button).
 */
const CONTROLS = 'input, button, a[href], [role=button], [role=link], [role=checkbox], [onclick]';
/** The attribute that marks each control the snapshot saw, so that it is found again (open shadow roots too). */
const MARK = 'data-oauthctl-control';

/** Where a control of the last snapshot is, for acting on it. */
export function controlSelector(control: RenderedControl): string {
  return `[${MARK}="${control.index}"]`;
}

export interface RenderedControl {
  /** Its number in the snapshot (document order, open shadow roots after their host's light tree). */
  index: number;
  kind: 'field' | 'password' | 'checkbox' | 'control';
  tag: string;
  type: string;
  /** The accessible name (aria-labelledby, aria-label, label, text, value, placeholder, title), squashed. */
  name: string;
  /** The name and id attributes, for telling the account-name field. */
  attrName: string;
  attrId: string;
  autocomplete: string;
  empty: boolean;
  checked: boolean;
  disabled: boolean;
  /** The index of its form among the page's forms; -1 outside any. */
  form: number;
}

// Runs in the page (a string, so that no DOM types are needed here): one entry per visible control.
const SNAPSHOT = `(() => {
  const squash = (s) => (s || '').replace(/\\s+/g, ' ').trim();
  const shown = (el) => {
    if (!el || !el.isConnected) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return el.checkVisibility ? el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : true;
  };
  const nameOf = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = squash(by.split(/\\s+/).map((id) => (document.getElementById(id) || {}).textContent || '').join(' '));
      if (t) return t;
    }
    const aria = squash(el.getAttribute('aria-label'));
    if (aria) return aria;
    if (el.tagName === 'INPUT') {
      const type = (el.type || '').toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'reset') return squash(el.value || el.title);
      if (type === 'image') return squash(el.alt || el.title);
      const labels = el.labels ? squash([...el.labels].map((l) => l.textContent).join(' ')) : '';
      return labels || squash(el.placeholder) || squash(el.title);
    }
    const text = squash(el.innerText || el.textContent);
    if (text) return text;
    const img = el.querySelector('img[alt]');
    return squash(img ? img.alt : el.title);
  };
  const forms = [...document.forms];
  const found = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.hasAttribute(${JSON.stringify(MARK)})) el.removeAttribute(${JSON.stringify(MARK)});
      if (el.matches(${JSON.stringify(CONTROLS)})) found.push(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return found.flatMap((el, index) => {
    const tag = el.tagName.toLowerCase();
    const type = tag === 'input' ? (el.type || 'text').toLowerCase() : tag === 'button' ? (el.getAttribute('type') || 'submit').toLowerCase() : '';
    if (type === 'hidden') return [];
    const checkbox = type === 'checkbox' || type === 'radio' || el.getAttribute('role') === 'checkbox';
    const labelShown = checkbox && el.labels && [...el.labels].some(shown);
    if (!shown(el) && !labelShown) return [];
    const field = tag === 'input' && ['text', 'email', 'tel', 'password', ''].includes(type);
    const kind = checkbox ? 'checkbox' : type === 'password' ? 'password' : field ? 'field' : 'control';
    el.setAttribute(${JSON.stringify(MARK)}, String(index));
    return [{
      index, kind, tag, type, name: nameOf(el),
      attrName: el.getAttribute('name') || '', attrId: el.id || '', autocomplete: (el.getAttribute('autocomplete') || '').toLowerCase(),
      empty: field ? el.value === '' : true,
      checked: checkbox ? (el.checked === true || el.getAttribute('aria-checked') === 'true') : false,
      disabled: el.disabled === true || el.getAttribute('aria-disabled') === 'true' || el.readOnly === true,
      form: el.form ? forms.indexOf(el.form) : -1,
    }];
  });
})()`;

/** The visible controls of the page; none while it is between documents. */
export async function renderedControls(page: Page): Promise<RenderedControl[]> {
  return page.evaluate<RenderedControl[]>(SNAPSHOT).catch(() => []);
}

export type RenderedAction =
  | { kind: 'login'; username: RenderedControl | undefined; password: RenderedControl; submit: RenderedControl | undefined }
  | { kind: 'identifier'; username: RenderedControl; submit: RenderedControl | undefined }
  | { kind: 'consent'; decision: ConsentDecision; checkboxes: RenderedControl[]; control: RenderedControl }
  | { kind: 'none'; detail: string };

/** What moves a login on, besides an approval: "Sign in", "Log in", "Next", "Submit". */
const ONWARD = /\b(sign.?in|log.?in|next|submit|continue|weiter|anmelden|connexion|go)\b/i;

function asField(c: RenderedControl): FormField {
  return {
    tag: 'input',
    type: c.type === 'text' ? '' : c.type,
    name: c.attrName,
    id: c.attrId,
    autocomplete: c.autocomplete,
    label: c.name,
    value: '',
    checked: false,
    disabled: c.disabled,
    text: '',
  };
}

const buttonLike = (c: RenderedControl) => c.tag === 'button' || c.tag === 'input';

/** The control that submits a login: an onward one, in the field's form first, a button before a link. */
function onwardControl(controls: readonly RenderedControl[], near: RenderedControl): RenderedControl | undefined {
  const usable = controls.filter((c) => c.kind === 'control' && !c.disabled && classifyChoice(c.name) !== 'deny');
  const rank = (c: RenderedControl) => (c.form === near.form && near.form >= 0 ? 4 : 0) + (ONWARD.test(c.name) || classifyChoice(c.name) === 'approve' ? 2 : 0) + (buttonLike(c) ? 1 : 0);
  const best = [...usable].sort((a, b) => rank(b) - rank(a))[0];
  return best && rank(best) >= 2 ? best : undefined;
}

/**
 * Decides, as a person would, what to do on a rendered page: fill the visible login fields and press
 * the control that moves on; or, on a grant step, tick the visible boxes (when approving) and press the
 * control whose name gives the wanted answer.
 */
export function decideRenderedAction(controls: readonly RenderedControl[], options: { consent: ConsentDecision }): RenderedAction {
  const password = controls.find((c) => c.kind === 'password' && !c.disabled && !c.autocomplete.includes('new-password'));
  const fields = controls.filter((c) => c.kind === 'field' && !c.disabled);
  if (password) {
    const scored = fields.map((c) => ({ c, score: usernameScore(asField(c)) })).filter((x) => x.score >= 0);
    const best = [...scored].sort((a, b) => b.score - a.score)[0];
    const before = fields.filter((c) => c.index < password.index).pop();
    const username = best && best.score > 0 ? best.c : before;
    return { kind: 'login', username, password, submit: onwardControl(controls, password) };
  }
  const identifier = fields.find((c) => c.empty && usernameScore(asField(c)) >= 5);
  if (identifier) return { kind: 'identifier', username: identifier, submit: onwardControl(controls, identifier) };

  const choices = controls.filter((c) => c.kind === 'control' && !c.disabled);
  const wanted = choices.filter((c) => classifyChoice(c.name) === options.consent).sort((a, b) => Number(buttonLike(b)) - Number(buttonLike(a)));
  let control = wanted[0];
  if (!control && options.consent === 'approve') {
    const onward = choices.filter((c) => buttonLike(c) && classifyChoice(c.name) !== 'deny');
    if (onward.length === 1) control = onward[0];
  }
  if (control) {
    const checkboxes = options.consent === 'approve' ? controls.filter((c) => c.kind === 'checkbox' && !c.checked && !c.disabled && classifyChoice(c.name) !== 'deny') : [];
    return { kind: 'consent', decision: options.consent, checkboxes, control };
  }
  const offered = choices.map((c) => JSON.stringify(c.name)).slice(0, 6);
  return { kind: 'none', detail: offered.length ? `no visible control to ${options.consent} among ${offered.join(', ')}` : 'no visible field or control' };
}
