import type { UserAgent } from '../client/flows/user-agent.js';

/** --no-browser: print the URL on stderr for the user to open, then wait for the redirect. */
export const printUrlUserAgent: UserAgent = async ({ authorizationUrl, io }) => {
  io.stderr.write(`Open this URL in a browser to continue:\n\n  ${authorizationUrl}\n\n`);
};
