/** What every part of the configuration's validation shares: the unknown-field check. */
export type Obj = Record<string, unknown>;
/** `// ...` keys are comments, `$schema` names the file's JSON Schema: neither is a field. */
const isComment = (key: string) => key.startsWith('//') || key === '$schema';

export function unknownKeys(obj: Obj, known: readonly string[], field: string, fail: (f: string, m: string) => void): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key) && !isComment(key)) fail(field ? `${field}.${key}` : key, `unknown field (known: ${known.join(', ')})`);
  }
}
