import { tokenizeHtml } from './html.js';

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
  /** Text of elements that look like error messages (role=alert, class *error*, *alert*, *danger*). */
  alerts: string[];
  /** The target of a <meta http-equiv="refresh">, resolved. */
  metaRefresh?: string;
}

const SUBMIT_TYPES = new Set(['submit', 'image']);

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

function looksLikeAlert(attrs: Record<string, string>): boolean {
  if (attrs.role === 'alert') return true;
  return /\b(error|alert|danger|invalid)\b/i.test(`${attrs.class ?? ''} ${attrs.id ?? ''}`);
}

/** Parses a page into the forms, links and hints the headless user agent needs. Never throws. */
export function parsePage(html: string, pageUrl: string): HtmlPage {
  const tokens = tokenizeHtml(html);
  let base = pageUrl;
  const page: HtmlPage = { url: pageUrl, title: '', forms: [], links: [], scripts: 0, alerts: [] };
  const rawForms: { id: string; action: string | undefined; method: string }[] = [];
  const fieldsByForm: FormField[][] = [];
  const orphans: { formId: string; field: FormField }[] = [];
  const labelsFor = new Map<string, string>();

  let currentForm = -1;
  let label: { forId: string; text: string; fields: FormField[] } | undefined;
  let button: FormField | undefined;
  let select: { field: FormField; first?: string; chosen?: string; option?: { value?: string; text: string; selected: boolean } } | undefined;
  let link: HtmlLink | undefined;
  let textarea: FormField | undefined;
  const alerts: { name: string; depth: number; text: string }[] = [];

  const addField = (field: FormField, formAttr: string | undefined) => {
    if (formAttr) orphans.push({ formId: formAttr, field });
    else if (currentForm >= 0) fieldsByForm[currentForm]?.push(field);
    else return;
    label?.fields.push(field);
  };
  const fieldFrom = (tag: FormField['tag'], attrs: Record<string, string>, type: string): FormField => {
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
  };
  const addText = (text: string) => {
    if (label) label.text += text;
    if (button) button.text += text;
    if (select?.option) select.option.text += text;
    if (link) link.text += text;
    for (const a of alerts) a.text += text;
  };

  for (const token of tokens) {
    if (token.kind === 'text') {
      addText(token.text);
      continue;
    }
    if (token.kind === 'raw') {
      if (token.name === 'title') page.title = squash(token.text);
      // A textarea's content arrives as a raw token right after its start tag.
      if (token.name === 'textarea' && textarea) textarea.value = token.text;
      textarea = undefined;
      continue;
    }
    if (token.kind === 'end') {
      const top = alerts[alerts.length - 1];
      if (top && top.name === token.name && --top.depth === 0) {
        alerts.pop();
        const text = squash(top.text);
        if (text) page.alerts.push(text);
      }
      if (token.name === 'form') currentForm = -1;
      else if (token.name === 'label' && label) {
        const text = squash(label.text);
        if (label.forId) labelsFor.set(label.forId, text);
        for (const f of label.fields) f.label = squash(`${text} ${f.label}`);
        label = undefined;
      } else if (token.name === 'button' && button) {
        button.text = squash(button.text);
        button = undefined;
      } else if (token.name === 'option' && select?.option) {
        closeOption(select);
      } else if (token.name === 'select' && select) {
        if (select.option) closeOption(select);
        select.field.value = select.chosen ?? select.first ?? '';
        select = undefined;
      } else if (token.name === 'a' && link) {
        link.text = squash(link.text);
        page.links.push(link);
        link = undefined;
      }
      continue;
    }

    const { name, attrs } = token;
    const top = alerts[alerts.length - 1];
    if (top && top.name === name && !token.selfClosing) top.depth++;
    else if (looksLikeAlert(attrs) && !token.selfClosing && !['input', 'form', 'button', 'br', 'img'].includes(name)) {
      alerts.push({ name, depth: 1, text: '' });
    }
    switch (name) {
      case 'base':
        if (attrs.href) base = resolve(attrs.href, pageUrl) ?? base;
        break;
      case 'script':
        page.scripts++;
        break;
      case 'meta':
        if ((attrs['http-equiv'] ?? '').toLowerCase() === 'refresh') {
          const m = /url\s*=\s*['"]?([^'"]+)/i.exec(attrs.content ?? '');
          if (m?.[1]) {
            const target = resolve(m[1], base);
            if (target) page.metaRefresh = target;
          }
        }
        break;
      case 'form':
        rawForms.push({ id: attrs.id ?? '', action: attrs.action, method: attrs.method ?? 'get' });
        fieldsByForm.push([]);
        currentForm = rawForms.length - 1;
        break;
      case 'label':
        label = { forId: attrs.for ?? '', text: '', fields: [] };
        break;
      case 'input':
        addField(fieldFrom('input', attrs, (attrs.type ?? 'text').toLowerCase()), attrs.form);
        break;
      case 'button': {
        const field = fieldFrom('button', attrs, (attrs.type ?? 'submit').toLowerCase());
        addField(field, attrs.form);
        if (!token.selfClosing) button = field;
        break;
      }
      case 'textarea':
        textarea = fieldFrom('textarea', attrs, 'textarea');
        addField(textarea, attrs.form);
        break;
      case 'select': {
        const field = fieldFrom('select', attrs, 'select');
        addField(field, attrs.form);
        select = { field };
        break;
      }
      case 'option':
        if (select) {
          if (select.option) closeOption(select);
          select.option = { text: '', selected: 'selected' in attrs, ...(attrs.value !== undefined ? { value: attrs.value } : {}) };
        }
        break;
      case 'a':
        if (attrs.href !== undefined) {
          const href = resolve(attrs.href, base);
          if (href && /^https?:/.test(href)) link = { href, text: '' };
        }
        break;
      default:
        break;
    }
  }
  rawForms.forEach((raw, index) => {
    const action = raw.action?.trim() ? (resolve(raw.action, base) ?? pageUrl) : pageUrl;
    const fields = [...(fieldsByForm[index] ?? []), ...orphans.filter((o) => raw.id && o.formId === raw.id).map((o) => o.field)];
    for (const f of fields) {
      const forLabel = f.id ? labelsFor.get(f.id) : undefined;
      if (forLabel) f.label = squash(`${forLabel} ${f.label}`);
    }
    page.forms.push({ index, id: raw.id, action, method: raw.method.toLowerCase() === 'post' ? 'POST' : 'GET', fields });
  });
  return page;
}

function closeOption(select: { first?: string; chosen?: string; option?: { value?: string; text: string; selected: boolean } }): void {
  const option = select.option;
  if (!option) return;
  const value = option.value ?? squash(option.text);
  select.first ??= value;
  if (option.selected) select.chosen = value;
  delete select.option;
}
