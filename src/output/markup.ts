import { escapeLogValue, escapeTerminal } from './escape.js';

/**
 * The one escaper of text put into HTML, SVG or XML, as content or as an attribute value (HTML Living
 * Standard 13.1.2.3 and 13.1.4, XML 1.0 section 2.4): & < > " ' as numeric character references,
 * which all three read the same way. The mock's pages, the redirect listener's, the trace's.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The same for an XML 1.0 document (the JUnit report): characters XML 1.0 cannot carry (section 2.2) dropped first. */
export function escapeXml(text: string): string {
  return escapeHtml(text.replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ''));
}

/**
 * Remote text (from a HAR or a client) for HTML or SVG markup: control characters and line breaks
 * shown as escapes (escapeLogValue), then escaped as markup.
 */
export function escapeMarkup(text: string): string {
  return escapeHtml(escapeLogValue(text));
}

/** The same for a block (a `<pre>`): line breaks and tabs kept. */
export function escapeMarkupBlock(text: string): string {
  return escapeHtml(escapeTerminal(text).replace(/[\u2028\u2029]/g, '\n'));
}
