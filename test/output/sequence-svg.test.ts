// The trace page's arrows: a label is cut only when the drawing has no room for it, not at the arrow's span.
import { describe, expect, it } from 'vitest';
import type { SequenceDiagram } from '../../src/output/sequence-diagram.js';
import { renderSequenceSvg } from '../../src/output/sequence-svg.js';

const lifelines = [{ role: 'user agent' }, { role: 'client' }, { role: 'authorization server' }, { role: 'resource' }];
const message = (from: number, to: number, label: string, params: string[] = []) => ({ from, to, label, params, reply: false, failed: false });
const texts = (svg: string) => [...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="middle"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
const width = (svg: string) => Number(/ width="(\d+)"/.exec(svg)![1]);

describe('renderSequenceSvg', () => {
  it('an arrow between neighbours shows a label twice its span long whole, with its parameters', () => {
    const label = 'POST /realms/photo/protocol/openid-connect/token (grant_type=authorization_code)'; // 80 characters
    const params = ['scope=openid profile email photo offline_access', 'state=af0ifjsldkj', 'code_challenge_method=S256'];
    const d: SequenceDiagram = { lifelines, messages: [message(1, 2, label, params)] };
    const svg = renderSequenceSvg(d, { title: 't' });
    expect(texts(svg)).toContain(label);
    expect(texts(svg)).toContain(params.join(' '));
    // And it fits in the drawing: centred on the arrow, at 7.2 px a character.
    const mid = 24 + 240 * 1.5 + 240 / 2;
    expect((label.length * 7.2) / 2).toBeLessThanOrEqual(Math.min(mid, width(svg) - mid));
  });

  it('a label longer than the drawing is still cut, ending in …, within the drawing', () => {
    const label = `GET /${'a'.repeat(400)}`;
    const svg = renderSequenceSvg({ lifelines, messages: [message(0, 1, label)] }, { title: 't' });
    const shown = texts(svg).find((t) => t.startsWith('GET /'))!;
    expect(shown.endsWith('…')).toBe(true);
    const mid = 24 + 240 / 2 + 240 / 2;
    expect(([...shown].length * 7.2) / 2).toBeLessThanOrEqual(mid);
  });
});
