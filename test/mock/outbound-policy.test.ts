import { beforeAll, describe, expect, it } from 'vitest';
import { LOOPBACK_NAMESPACE_UNAVAILABLE, runInLoopbackNamespace } from '../helpers/loopback-namespace.js';

/**
 * Issue 40 point 3: every call the mock makes for a client (a client ID metadata document, a
 * jwks_uri, a back-channel logout, a CIBA ping) and every registration naming such a URL is refused
 * before any connection when the address is link-local, private, unique-local, unspecified or
 * multicast, by an IP literal or by a name that resolves there; the refusal names the policy, never
 * the network's own error. The scenarios (test/mock/outbound/scenarios.ts) run inside a network
 * namespace with only loopback: a connection to 169.254.169.254 or 10.0.0.1 fails there at once, so
 * no packet leaves the machine even if the policy were broken, and a network error could not pass for
 * the refusal. Names resolve through the namespace's own /etc/hosts.
 */
const HOSTS = { 'metadata.test': '169.254.169.254', 'internal.test': '10.0.0.7' };
const RULE = 'no link-local, private, unique-local, unspecified or multicast address; config "outbound": {"private_networks": true} allows private ranges';
const POLICY = `which the mock does not call (${RULE})`;
/** What the error page shows of the policy (HTML-escaped quotes), and what an OAuth error_description can carry (RFC 6749: no double quote). */
const POLICY_IN_PAGE = POLICY.replaceAll('"', '&#34;');
/** Words of a network error that must never reach a client. */
const NETWORK_WORDS = /ENETUNREACH|ECONNREFUSED|EHOSTUNREACH|connect |getaddrinfo|socket/i;

type Page = { status: number; text: string; ms: number };
interface Results {
  documents: Record<string, Page>;
  jwksUri: { status: number; body: Record<string, string> };
  registration: Record<string, { status: number; body: Record<string, string> }>;
  backchannelLogout: { status: number; outcome: string; error: string; errorDescription: string; entries: number }[];
  cibaPing: { status: number; outcome: string; errorDescription: string };
  lab: { private: Page; uniqueLocal: Page; linkLocal: Page; ping: { status: number; outcome: string; errorDescription: string } };
}

/** The message of the mock's error page. */
const pageMessage = (page: Page) => /<p class="err[^>]*>([^<]*)<\/p>/.exec(page.text)?.[1] ?? page.text;
const inDescription = (text: string) => text.replace(/"/g, "'");

let results: Results;
beforeAll(async () => {
  if (LOOPBACK_NAMESPACE_UNAVAILABLE !== undefined) return;
  const run = await runInLoopbackNamespace('test/mock/outbound/scenarios.ts', { hosts: HOSTS });
  if (run.code !== 0) throw new Error(`the scenarios failed (exit ${run.code}): ${run.stderr}`);
  results = JSON.parse(run.stdout) as Results;
}, 120_000);

describe.skipIf(LOOPBACK_NAMESPACE_UNAVAILABLE !== undefined)(
  `the mock's outbound calls, in a namespace with only loopback${LOOPBACK_NAMESPACE_UNAVAILABLE !== undefined ? ` (skipped: ${LOOPBACK_NAMESPACE_UNAVAILABLE})` : ''}`,
  () => {
    it('GET /authorize naming a metadata document at an internal address: the error page says it could not be fetched, and why', () => {
      const expected: Record<string, string> = {
        'https://169.254.169.254/latest/meta-data': '169.254.169.254 is a link-local address',
        'https://10.0.0.1/client': '10.0.0.1 is a private address',
        'https://[fd00::1]/client': 'fd00::1 is a unique-local address',
        'https://[::ffff:10.0.0.1]/client': '::ffff:a00:1 is a private address',
        'https://[::ffff:a9fe:a9fe]/client': '::ffff:a9fe:a9fe is a link-local address',
        'https://metadata.test/client': 'metadata.test resolves to a link-local address',
        'https://internal.test/client': 'internal.test resolves to a private address',
        'https://[ff02::1]/client': 'ff02::1 is a multicast address',
        'https://0.0.0.0/client': '0.0.0.0 is an unspecified address',
      };
      expect(Object.keys(results.documents)).toEqual(Object.keys(expected));
      for (const [url, why] of Object.entries(expected)) {
        const page = results.documents[url]!;
        expect(page.status).toBe(400);
        expect(pageMessage(page)).toBe(`The client ID metadata document at ${url} could not be fetched: ${why}, ${POLICY_IN_PAGE}.`);
        expect(page.text).not.toMatch(NETWORK_WORDS);
      }
      // A name's address is not told: whoever named it learns nothing of the mock's DNS.
      expect(results.documents['https://internal.test/client']!.text).not.toContain('10.0.0.7');
    });

    it('the first private_key_jwt assertion of a client whose jwks_uri resolves to the metadata address: invalid_client, the policy named', () => {
      expect(results.jwksUri.status).toBe(401);
      expect(results.jwksUri.body.error).toBe('invalid_client');
      expect(results.jwksUri.body.error_description).toBe(
        `the client assertion of keyed (private_key_jwt) is not valid: the client's jwks_uri could not be fetched: metadata.test resolves to a link-local address, ${inDescription(POLICY)}`,
      );
    });

    it('registration naming an internal URL in any field the mock would call: invalid_client_metadata saying which and why', () => {
      const expected: Record<string, string> = {
        jwks_uri: "'https://169.254.169.254/jwks' could not be fetched by this server: 169.254.169.254 is a link-local address",
        backchannel_logout_uri: "'https://internal.test/logout' could not be fetched by this server: internal.test resolves to a private address",
        backchannel_client_notification_endpoint: "'https://[fd00::1]/notify' could not be fetched by this server: fd00::1 is a unique-local address",
        sector_identifier_uri: "'https://10.0.0.1/sector.json' could not be fetched by this server: 10.0.0.1 is a private address",
      };
      for (const [field, why] of Object.entries(expected)) {
        const answer = results.registration[field]!;
        expect(answer.status).toBe(400);
        expect(answer.body.error).toBe('invalid_client_metadata');
        expect(answer.body.error_description).toBe(`${field}: ${why} (${inDescription(RULE)})`);
      }
    });

    it('a back-channel logout to the metadata address: not delivered, the policy named, not retried', () => {
      expect(results.backchannelLogout).toHaveLength(1);
      const [entry] = results.backchannelLogout;
      expect(entry).toMatchObject({ status: 0, error: 'delivery_failed', outcome: 'back-channel logout (admin) failed after 1 attempt, attempt 1' });
      expect(entry!.errorDescription).toBe(`could not be delivered: 169.254.169.254 is a link-local address, ${POLICY}`);
    });

    it('a CIBA ping to a notification endpoint whose name resolves to a private address: not delivered, the policy named', () => {
      expect(results.cibaPing).toMatchObject({ status: 0, outcome: 'CIBA ping not delivered' });
      expect(results.cibaPing.errorDescription).toBe(`could not be delivered: internal.test resolves to a private address, ${POLICY}`);
    });

    it('outbound.private_networks lets private and unique-local addresses through to the connection (which fails here), never link-local', () => {
      for (const [page, url] of [
        [results.lab.private, 'https://10.0.0.1/client'],
        [results.lab.uniqueLocal, 'https://[fd00::1]/client'],
      ] as const) {
        // The network's failure, told without its words: the policy let it pass.
        expect(pageMessage(page)).toBe(`The client ID metadata document at ${url} could not be fetched (no connection, or it broke off).`);
        expect(page.text).not.toMatch(NETWORK_WORDS);
      }
      expect(results.lab.ping.errorDescription).toBe('could not be delivered (no connection, or it broke off)');
      expect(pageMessage(results.lab.linkLocal)).toContain('169.254.169.254 is a link-local address');
    });
  },
);
