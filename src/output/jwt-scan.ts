/**
 * The compact-serialised JWTs in a text (RFC 7519 section 7.2: BASE64URL parts joined by dots), found
 * in linear time. A regular expression such as /\beyJ[\w-]{2,4096}\.eyJ[\w-]{2,16384}\.[\w-]*\/g tries
 * every `eyJ` as a start and backtracks over the run after it: a body of `eyJ-` repeated costs
 * O(n * 4096). This scanner walks the text once by runs of base64url characters instead: each run is
 * read once to find where it ends, and every start inside a run shares that end (a start followed by
 * `.` needs the whole run as its part), so no character is read more than a fixed number of times.
 */

/** A JWT's first two parts, as they appear in the text (the signature is not needed to decode). */
export interface FoundJwt {
  header: string;
  payload: string;
}

const MAX_HEADER = 4096;
const MAX_PAYLOAD = 16384;

const isBase64Url = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;

/**
 * The JWTs of `text`, in order. `steps` counts every character read, for the proof that the
 * cost is linear: a character is read at most once as part of a header run, once as part of a payload run,
 * and four times while looking for a header's start in it, so under 6 reads a character, whatever the text.
 */
export function scanJwts(text: string): { jwts: FoundJwt[]; steps: number } {
  let steps = 0;
  const at = (i: number) => {
    steps++;
    return text.charCodeAt(i);
  };
  /** Where the run of base64url characters from `start` ends. */
  const runEnd = (start: number) => {
    let i = start;
    while (i < text.length && isBase64Url(at(i))) i++;
    return i;
  };
  const startsEyJ = (i: number) => text.startsWith('eyJ', i) && (steps += 3) > 0;
  const jwts: FoundJwt[] = [];
  let i = 0;
  while (i < text.length) {
    if (!isBase64Url(at(i))) {
      i++;
      continue;
    }
    const end = runEnd(i);
    const header = headerStart(i, end);
    let next = end;
    if (header !== undefined && end < text.length && at(end) === 0x2e && startsEyJ(end + 1)) {
      const payloadEnd = runEnd(end + 1);
      const payloadLength = payloadEnd - end - 1;
      if (payloadLength >= 5 && payloadLength <= MAX_PAYLOAD + 3 && payloadEnd < text.length && at(payloadEnd) === 0x2e) {
        jwts.push({ header: text.slice(header, end), payload: text.slice(end + 1, payloadEnd) });
        next = runEnd(payloadEnd + 1);
      }
    }
    i = next;
  }
  return { jwts, steps };

  /**
   * The first start in the run [from, end) a header can begin at: `eyJ` at a word boundary (the run's
   * start, or after a `-`), with 2 to 4096 characters after `eyJ` up to the run's end.
   */
  function headerStart(from: number, end: number): number | undefined {
    for (let p = Math.max(from, end - MAX_HEADER - 3); p + 5 <= end; p++) {
      // A run starts after a non-word character (or the text's start); inside it, only a `-` is one.
      if ((p === from || at(p - 1) === 0x2d) && startsEyJ(p)) return p;
    }
    return undefined;
  }
}
