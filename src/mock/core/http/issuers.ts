import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** RFC 8414 section 3.1: the metadata of issuer `{root}/{name}` is at this path with `/{name}` appended. */
const WELL_KNOWN = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

/**
 * The request listener of several issuers in one server: `/{name}/...` goes to issuer `name` with
 * the prefix taken off the request target (so every route of an issuer, whoever adds it, is served
 * under its prefix), `/.well-known/oauth-authorization-server/{name}` to its metadata; anything else
 * to the root issuer.
 */
export function dispatchByIssuer(root: Listener, named: ReadonlyMap<string, Listener>): Listener {
  if (named.size === 0) return root;
  return (req, res) => {
    const target = req.url ?? '/';
    const cut = target.slice(1).search(/[/?#]/);
    const issuer = named.get(cut < 0 ? target.slice(1) : target.slice(1, cut + 1));
    if (issuer) {
      const rest = cut < 0 ? '' : target.slice(cut + 1);
      req.url = rest.startsWith('/') ? rest : `/${rest}`;
      return issuer(req, res);
    }
    for (const prefix of WELL_KNOWN) {
      if (!target.startsWith(`${prefix}/`)) continue;
      const tail = target.slice(prefix.length + 1);
      const q = tail.search(/[?#]/);
      const inserted = named.get(q < 0 ? tail : tail.slice(0, q));
      if (inserted) {
        req.url = prefix + (q < 0 ? '' : tail.slice(q));
        return inserted(req, res);
      }
    }
    root(req, res);
  };
}

/**
 * Why `--issuer-url` cannot be used, or undefined: an absolute http(s) URL without query, fragment or
 * credentials (RFC 8414 section 2).
 */
export function issuerUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL such as http://mock:9000';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'must not have a query or fragment (RFC 8414 section 2)';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (/[^\x21-\x7e]/.test(value)) return 'must be printable ASCII: write an IDN host in its xn-- form';
  return undefined;
}

/** The issuer as announced: the URL without a trailing slash. */
export function normalizeIssuerUrl(value: string): string {
  return value.replace(/\/+$/, '');
}
