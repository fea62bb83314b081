import { isJsonObject, JsonDepthError, MAX_JSON_DEPTH, parseJson } from './json.js';

/** One entry of `authorization_details` (RFC 9396 section 2): a `type`, and fields that type defines. */
export type AuthorizationDetail = Record<string, unknown> & { type: string };

/** The common data fields of RFC 9396 section 2.2, each an array of strings except `identifier`. */
const STRING_ARRAY_FIELDS = ['locations', 'actions', 'datatypes', 'privileges'] as const;

/**
 * RFC 9396 section 2: a JSON array of JSON objects, each with a string `type`; the common fields
 * (section 2.2) of the types they have. Returns the entries, or what is wrong in one phrase.
 */
export function parseAuthorizationDetails(value: unknown): AuthorizationDetail[] | string {
  if (!Array.isArray(value)) return 'authorization_details must be a JSON array of objects (RFC 9396 section 2)';
  if (value.length === 0) return 'authorization_details must not be empty (RFC 9396 section 2)';
  for (const [i, entry] of value.entries()) {
    if (!isJsonObject(entry)) return `authorization_details[${i}] is not a JSON object (RFC 9396 section 2)`;
    if (typeof entry.type !== 'string' || entry.type === '') return `authorization_details[${i}] has no type, or one that is not a string (RFC 9396 section 2)`;
    for (const field of STRING_ARRAY_FIELDS) {
      const v = entry[field];
      if (v !== undefined && (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))) return `authorization_details[${i}].${field} must be an array of strings (RFC 9396 section 2.2)`;
    }
    if (entry.identifier !== undefined && typeof entry.identifier !== 'string') return `authorization_details[${i}].identifier must be a string (RFC 9396 section 2.2)`;
  }
  return value as AuthorizationDetail[];
}

/**
 * The parameter's text (RFC 9396 section 3: JSON in a form or query parameter), parsed and checked;
 * with the same bound on nesting as every other JSON read here (a client's details are echoed into
 * tokens, introspection and pages, whose writers recurse).
 */
export function parseAuthorizationDetailsParam(text: string): AuthorizationDetail[] | string {
  let value: unknown;
  try {
    value = parseJson(text, 'authorization_details');
  } catch (err) {
    if (err instanceof JsonDepthError) return `authorization_details is nested more than ${MAX_JSON_DEPTH} levels deep (RFC 9396 section 3)`;
    return 'authorization_details is not valid JSON (RFC 9396 section 3)';
  }
  return parseAuthorizationDetails(value);
}

/** The types of `details` that are not among `known` (RFC 9396 section 5: invalid_authorization_details). */
export function unknownAuthorizationDetailTypes(details: readonly AuthorizationDetail[], known: readonly string[]): string[] {
  return [...new Set(details.map((d) => d.type).filter((t) => !known.includes(t)))];
}
