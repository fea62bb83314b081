import type { TokenExchange } from '../../exchanges.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/** error = 1*NQSCHAR without space, RFC 6749 section 5.2 and appendix A.7. */
const ERROR_CODE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

export interface ErrorResponseProblem {
  /** `major`: not an RFC 6749 error object at all; `minor`: one, but with characters or a status the RFC rules out. */
  severity: 'major' | 'minor';
  text: string;
}

/** What is wrong with one token endpoint error response, or undefined when it follows RFC 6749 section 5.2. */
export function errorResponseProblem(x: TokenExchange): ErrorResponseProblem | undefined {
  const major = (text: string): ErrorResponseProblem => ({ severity: 'major', text });
  const minor = (text: string): ErrorResponseProblem => ({ severity: 'minor', text });
  const type = (x.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return major(`Content-Type is ${type ? JSON.stringify(type) : 'missing'}, not application/json`);
  if (!x.json || typeof x.json !== 'object' || Array.isArray(x.json)) return major('the body is not a JSON object');
  const o = x.json as Record<string, unknown>;
  if (typeof o.error !== 'string') return major('no "error" string member');
  if (x.status >= 500) return major(`HTTP ${x.status} for a client error`);
  if (!ERROR_CODE.test(o.error)) return minor(`error ${JSON.stringify(o.error)} has characters section 5.2 does not allow`);
  if (o.error_description !== undefined && typeof o.error_description !== 'string') return major('error_description is not a string');
  if (typeof o.error_description === 'string' && !DESCRIPTION.test(o.error_description)) {
    const bad = [...o.error_description].find((c) => !DESCRIPTION.test(c)) ?? '';
    return minor(`error_description contains ${JSON.stringify(bad)}, which section 5.2 does not allow`);
  }
  if (x.status !== 400 && x.status !== 401) return minor(`HTTP ${x.status} (section 5.2 uses 400, or 401 for client authentication)`);
  return undefined;
}

/** RFC 6749 section 5.2: every token endpoint error seen during the audit, plus an unsupported grant type. */
export const errorFormatProbe: AuditProbe = {
  id: 'error-format',
  title: 'token endpoint errors are RFC 6749 JSON',
  rfc: 'RFC 6749 §5.2',
  category: 'token-endpoint',
  threat: 'RFC 6749 §5.2',
  remedy: 'Answer token errors as JSON {error, error_description} with the status RFC 6749 §5.2 gives.',
  async run(ctx) {
    await ctx.token({ grant_type: 'urn:oauthctl:audit:unsupported' });
    const errors = ctx.exchanges.filter((x) => x.status >= 400 && (x.method === undefined || x.method === 'POST'));
    if (errors.length === 0) return skip('no error response seen');
    const problems = errors.flatMap((x) => {
      const problem = errorResponseProblem(x);
      return problem ? [{ ...problem, text: `${x.grantType} -> HTTP ${x.status}: ${problem.text}` }] : [];
    });
    if (problems.length > 0) {
      const text = `${problems.length} of ${errors.length} error responses: ${problems
        .slice(0, 3)
        .map((p) => p.text)
        .join('; ')}`;
      return problems.some((p) => p.severity === 'major') ? fail(text) : warn(text);
    }
    const codes = [...new Set(errors.map((x) => x.error?.error))].join(', ');
    return pass(`${errors.length} error responses, all JSON with a valid error (${codes})`);
  },
};
