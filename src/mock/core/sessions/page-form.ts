import { constantTimeEqual } from '../../../oauth/pkce.js';
import { isFormBody, readBody, singleParams, type Exchange } from '../http/http.js';
import { errorPage, sendPage } from '../pages/pages.js';
import { currentSession, type Session } from './session.js';

/** A refusal of a page's form: logged (csrf for a 403, else invalid_request) and answered with the error page. */
export type PageFormRefusal = (status: number, message: string) => void;

export function pageFormRefusal(ex: Exchange, heading: string, next: string): PageFormRefusal {
  return (status, message) => {
    ex.log.error = status === 403 ? 'csrf' : 'invalid_request';
    ex.log.errorDescription = message;
    ex.log.outcome = 'error page';
    sendPage(ex.res, status, 'Cannot continue', errorPage(heading, message, next));
  };
}

/**
 * A form posted back from one of the mock's pages (the device and CIBA pages): URL-encoded, each
 * field once, from the browser session whose CSRF token the page carried (compared in constant
 * time). Undefined, the refusal sent, when it is not.
 */
export async function readPageForm(ex: Exchange, refuse: PageFormRefusal): Promise<{ values: Map<string, string>; session: Session } | undefined> {
  if (!isFormBody(ex.req)) return void refuse(400, 'The form must be sent as application/x-www-form-urlencoded.');
  const { values, duplicate } = singleParams(await readBody(ex.req));
  if (duplicate) return void refuse(400, `The form sends ${duplicate} more than once.`);
  const session = currentSession(ex);
  if (!session) return void refuse(403, 'Your session has expired or cookies are off.');
  const token = values.get('csrf_token');
  if (!token || !constantTimeEqual(token, session.record.csrfToken)) return void refuse(403, 'The form was not sent from this page (CSRF token mismatch).');
  return { values, session };
}
