/** The ways the admin API can break the next access token issued. */
export const BROKEN_TOKEN_KINDS = ['expired', 'bad-signature', 'wrong-issuer', 'wrong-audience', 'alg-none'] as const;
export type BrokenTokenKind = (typeof BROKEN_TOKEN_KINDS)[number];

/** An answer or a delay queued for the next request(s) at one endpoint. */
export interface Fault {
  status?: number;
  error?: string;
  errorDescription?: string;
  delayMs?: number;
  /** How many more requests it applies to. */
  times: number;
}

/** What the next token response gets: claims merged into its access and ID token, a broken access token. */
export interface NextToken {
  claims?: Record<string, unknown>;
  broken?: BrokenTokenKind;
}

/** At most this many items wait in each queue (per endpoint for faults): memory stays bounded. */
export const MAX_QUEUED = 100;

/**
 * The items queued by the admin API (POST /_mock/next, MockServer.enqueue), consumed in order: one
 * queue of claims and one of broken tokens (each taken by the next token response), one queue of
 * faults per endpoint.
 */
export class MockQueue {
  private claims: Record<string, unknown>[] = [];
  private broken: BrokenTokenKind[] = [];
  private readonly faults = new Map<string, Fault[]>();

  /** True when no fault waits: the router's fast path. */
  get noFaults(): boolean {
    return this.faults.size === 0;
  }

  /** Room for one more item in that queue? */
  hasRoom(queue: 'claims' | 'token' | { endpoint: string }): boolean {
    const items = queue === 'claims' ? this.claims : queue === 'token' ? this.broken : (this.faults.get(queue.endpoint) ?? []);
    return items.length < MAX_QUEUED;
  }

  addClaims(claims: Record<string, unknown>): void {
    this.claims.push(claims);
  }

  addBrokenToken(kind: BrokenTokenKind): void {
    this.broken.push(kind);
  }

  addFault(endpoint: string, fault: Fault): void {
    const list = this.faults.get(endpoint);
    if (list) list.push(fault);
    else this.faults.set(endpoint, [fault]);
  }

  /** The fault for this request at `endpoint`, counted as used once. */
  takeFault(endpoint: string): Fault | undefined {
    const list = this.faults.get(endpoint);
    const fault = list?.[0];
    if (!list || !fault) return undefined;
    if (--fault.times <= 0) list.shift();
    if (list.length === 0) this.faults.delete(endpoint);
    return fault;
  }

  /** What the next token response gets (and no later one). */
  takeNextToken(): NextToken {
    const next: NextToken = {};
    const claims = this.claims.shift();
    const broken = this.broken.shift();
    if (claims) next.claims = claims;
    if (broken) next.broken = broken;
    return next;
  }

  clear(): void {
    this.claims = [];
    this.broken = [];
    this.faults.clear();
  }
}

/**
 * The name a fault is queued under for a request path: the first path segment (`/token` -> `token`,
 * `/introspect` -> `introspect`), `api` for the protected API, `metadata` for the well-known documents.
 * Undefined for paths no fault applies to (the admin API itself, the stylesheet, the index).
 */
export function endpointName(path: string): string | undefined {
  if (path.startsWith('/api/')) return 'api';
  if (path.startsWith('/.well-known/')) return 'metadata';
  if (path === '/' || path.startsWith('/_mock/') || path === '/_mock' || path.startsWith('/assets/')) return undefined;
  const slash = path.indexOf('/', 1);
  const segment = slash < 0 ? path.slice(1) : path.slice(1, slash);
  return segment || undefined;
}
