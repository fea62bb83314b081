import type { DefaultTreeAdapterTypes } from 'parse5';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

/** One control of a form as the headless user agent sees it. */
export interface FormField {
  tag: 'input' | 'button' | 'select' | 'textarea';
  /** Lower-cased type: text, password, hidden, checkbox, radio, submit, email, ... (button defaults to submit). */
  type: string;
  name: string;
  value: string;
  id: string;
  autocomplete: string;
  /** Text of the <label> that names the field (for= or wrapping), and aria-label / placeholder. */
  label: string;
  checked: boolean;
  disabled: boolean;
  /** A button's own text. */
  text: string;
  formAction?: string;
  formMethod?: string;
}

export interface HtmlForm {
  index: number;
  id: string;
  /** Resolved against the page URL (and <base href>); the page URL itself when the form has no action. */
  action: string;
  method: 'GET' | 'POST';
  fields: FormField[];
}

export interface HtmlLink {
  href: string;
  text: string;
}

export interface HtmlPage {
  url: string;
  title: string;
  forms: HtmlForm[];
  links: HtmlLink[];
  /** Number of <script> elements (inline or with src). */
  scripts: number;
  /**
   * Text of the elements that show an error to the user: role=alert, a class or id with error,
   * alert, danger, invalid or flash in it (Django's `errorlist` and `errornote`, Bootstrap's
   * `alert-danger`, Rails' flash), outermost first; hidden ones are left out.
   */
  alerts: string[];
  /** The words a person sees on the page: no <head>, <script>, <style>, <template>, <noscript>, whitespace collapsed. */
  text: string;
  /** The target of a <meta http-equiv="refresh">, resolved. */
  metaRefresh?: string;
}

const SUBMIT_TYPES = new Set(['submit', 'image']);
/** Elements whose text a person never sees (parse5 parses with scripting on, as browsers do). */
const UNSEEN = new Set(['head', 'script', 'style', 'template', 'noscript', 'title', 'textarea', 'select', 'option']);
const BLOCKS = new Set([
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'br',
  'pre',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'td',
  'th',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'form',
  'dt',
  'dd',
  'label',
  'button',
]);
const ALERT_CLASS = /error|alert|danger|invalid|flash/i;

export function isSubmitButton(field: FormField): boolean {
  return (field.tag === 'button' || field.tag === 'input') && SUBMIT_TYPES.has(field.type);
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function resolve(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).toString();
  } catch {
    return undefined;
  }
}

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function attrsOf(element: Element): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const a of element.attrs) if (!(a.name in attrs)) attrs[a.name] = a.value;
  return attrs;
}

function isHidden(attrs: Record<string, string>): boolean {
  return 'hidden' in attrs || attrs['aria-hidden'] === 'true' || /display\s*:\s*none|visibility\s*:\s*hidden/i.test(attrs.style ?? '');
}

function looksLikeAlert(name: string, attrs: Record<string, string>): boolean {
  if (['input', 'form', 'button', 'img', 'body', 'html', 'label'].includes(name)) return false;
  if (attrs.role === 'alert') return true;
  return ALERT_CLASS.test(`${attrs.class ?? ''} ${attrs.id ?? ''}`);
}

/** All the text under a node, as textContent gives it (template contents aside). */
function textContent(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  if (!('childNodes' in node)) return '';
  return node.childNodes.map(textContent).join('');
}

/** The text a person sees under a node: the unseen elements and hidden ones skipped, blocks on their own. */
function visibleText(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  if (!isElement(node)) return 'childNodes' in node ? node.childNodes.map(visibleText).join('') : '';
  if (UNSEEN.has(node.tagName) || isHidden(attrsOf(node))) return '';
  const inner = node.childNodes.map(visibleText).join('');
  return BLOCKS.has(node.tagName) ? ` ${inner} ` : inner;
}

/** Every element under `root`, in document order. */
function* elements(root: Node): Generator<Element> {
  if (!('childNodes' in root)) return;
  for (const child of root.childNodes) {
    if (!isElement(child)) continue;
    yield child;
    yield* elements(child);
  }
}

function fieldFrom(tag: FormField['tag'], attrs: Record<string, string>, type: string): FormField {
  const field: FormField = {
    tag,
    type,
    name: attrs.name ?? '',
    value: attrs.value ?? '',
    id: attrs.id ?? '',
    autocomplete: (attrs.autocomplete ?? '').toLowerCase(),
    label: squash(attrs['aria-label'] ?? attrs.placeholder ?? ''),
    checked: 'checked' in attrs,
    disabled: 'disabled' in attrs,
    text: '',
  };
  if (attrs.formaction !== undefined) field.formAction = attrs.formaction;
  if (attrs.formmethod !== undefined) field.formMethod = attrs.formmethod;
  return field;
}

/** A <select>'s value: its selected option, else its first (HTML "selectedness"). */
function selectValue(select: Element): string {
  const options = [...elements(select)].filter((e) => e.tagName === 'option');
  const chosen = options.find((o) => o.attrs.some((a) => a.name === 'selected')) ?? options[0];
  if (!chosen) return '';
  return attrsOf(chosen).value ?? squash(textContent(chosen));
}

/**
 * Parses a page, as a browser would (parse5, the WHATWG HTML parsing algorithm), into the forms,
 * links and hints the headless user agent needs. parse5 is loaded on the first page read, so a
 * command that reads none never loads it. Never throws on malformed markup.
 */
export async function parsePage(html: string, pageUrl: string): Promise<HtmlPage> {
  const { parse } = await import('parse5');
  return readDocument(parse(html), pageUrl);
}

function readDocument(document: Node, pageUrl: string): HtmlPage {
  const all = [...elements(document)];
  const baseHref = all.find((e) => e.tagName === 'base' && e.attrs.some((a) => a.name === 'href'));
  const base = (baseHref && resolve(attrsOf(baseHref).href ?? '', pageUrl)) ?? pageUrl;
  const titleElement = all.find((e) => e.tagName === 'title');
  const body = all.find((e) => e.tagName === 'body');
  const page: HtmlPage = { url: pageUrl, title: titleElement ? squash(textContent(titleElement)) : '', forms: [], links: [], scripts: 0, alerts: [], text: body ? squash(visibleText(body)) : '' };

  const formElements = all.filter((e) => e.tagName === 'form');
  const fieldsOf = new Map<Element, FormField[]>(formElements.map((f) => [f, []]));
  const formsById = new Map(formElements.map((f) => [attrsOf(f).id ?? '', f]));
  const labelled = new Map<string, string>();

  /** The form that owns a control: its form= attribute, else the nearest form around it. */
  const walk = (node: Node, form: Element | undefined, label: string[], hiddenAlert: boolean): void => {
    if (!('childNodes' in node)) return;
    for (const child of node.childNodes) {
      if (!isElement(child)) continue;
      const attrs = attrsOf(child);
      const name = child.tagName;
      let owner = name === 'form' ? child : form;
      let labels = label;
      let inAlert = hiddenAlert;
      if (!inAlert && looksLikeAlert(name, attrs) && !isHidden(attrs)) {
        const text = squash(visibleText(child));
        if (text) page.alerts.push(text);
        inAlert = true;
      }
      switch (name) {
        case 'script':
          page.scripts++;
          break;
        case 'meta':
          if ((attrs['http-equiv'] ?? '').toLowerCase() === 'refresh') {
            const m = /url\s*=\s*['"]?([^'"]+)/i.exec(attrs.content ?? '');
            const target = m?.[1] ? resolve(m[1], base) : undefined;
            if (target) page.metaRefresh = target;
          }
          break;
        case 'label': {
          const text = squash(textContent(child));
          if (attrs.for) labelled.set(attrs.for, text);
          else labels = [...label, text];
          break;
        }
        case 'a':
          if (attrs.href !== undefined) {
            const href = resolve(attrs.href, base);
            if (href && /^https?:/.test(href)) page.links.push({ href, text: squash(textContent(child)) });
          }
          break;
        case 'input':
        case 'button':
        case 'select':
        case 'textarea': {
          const type = name === 'input' ? (attrs.type ?? 'text').toLowerCase() : name === 'button' ? (attrs.type ?? 'submit').toLowerCase() : name;
          const field = fieldFrom(name, attrs, type);
          if (label.length) field.label = squash(`${label.join(' ')} ${field.label}`);
          if (name === 'button') field.text = squash(textContent(child));
          if (name === 'textarea') field.value = textContent(child);
          if (name === 'select') field.value = selectValue(child);
          if (attrs.form !== undefined) owner = formsById.get(attrs.form);
          if (owner) fieldsOf.get(owner)?.push(field);
          break;
        }
        default:
          break;
      }
      if (name !== 'textarea' && name !== 'select') walk(child, name === 'form' ? child : form, labels, inAlert);
    }
  };
  walk(document, undefined, [], false);

  formElements.forEach((element, index) => {
    const attrs = attrsOf(element);
    const action = attrs.action?.trim() ? (resolve(attrs.action, base) ?? pageUrl) : pageUrl;
    const fields = fieldsOf.get(element) ?? [];
    for (const f of fields) {
      const forLabel = f.id ? labelled.get(f.id) : undefined;
      if (forLabel) f.label = squash(`${forLabel} ${f.label}`);
    }
    page.forms.push({ index, id: attrs.id ?? '', action, method: (attrs.method ?? 'get').toLowerCase() === 'post' ? 'POST' : 'GET', fields });
  });
  return page;
}
