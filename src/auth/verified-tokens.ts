/** How many tokens a table remembers at most: ~0.6 KB each, so a full table stays under ~3 MB (two tables: ~6 MB). */
const MAX_ENTRIES = 4096;

/**
 * Tokens this process has verified, by their exact text (a refresh token by its digest), with the claims they
 * carry (one table per kind). A client sends the same access token with every request for its whole lifetime,
 * and the same refresh cookie at every page load and every access token's expiry; verifying it again costs an
 * HMAC, two base64 decodes, two JSON parses and jsonwebtoken's option checks: the largest piece of an
 * authenticated request after the user's state, and of a refresh (docs/performance.md). A hit means this very
 * string passed every check before, with the same key; only the clock can change that answer, so an entry serves
 * until the token's `exp` (the first moment a full check would refuse it: a token living longer than this service
 * issues is refused outright).
 *
 * Only successes are kept: garbage sent by an attacker cannot evict the tokens of real callers, and a refused
 * token is checked in full every time. Revocation is untouched: the guards still compare the session version
 * with the user as stored now on every request (caller-states.ts), and a refresh still asks the store for the
 * token's record. Oldest entries leave first when full. `Claims` is what a verified token says (tokens.ts).
 */
export class VerifiedTokens<Claims> {
  private readonly entries = new Map<string, { claims: Claims; untilMs: number }>();

  constructor(private readonly maxEntries = MAX_ENTRIES) {}

  /** The claims of a token verified before and still within its time, else undefined. */
  get(token: string, nowMs = Date.now()): Claims | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (nowMs < entry.untilMs) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  /** Remembers a token that has just passed every check, until `untilMs` (see above). */
  remember(token: string, claims: Claims, untilMs: number): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { claims, untilMs });
  }
}
