/** An error a handler throws to answer with `status` and an RFC 6749 section 5.2 body (and `headers`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}
