import type { AccessToken, TokenSource, Tokens } from "../../core/ports/tokens.js";
import { HOUR_MS, MINUTE_MS } from "../../lib/time.js";

/** Refresh this long before a token's end, so a token never expires mid-sweep (5 min). */
export const EXPIRY_MARGIN_MS = 5 * MINUTE_MS;

/** Longest a token is kept, whatever its expires_on says (24 h): an absurd date is not trusted. */
export const MAX_TOKEN_LIFETIME_MS = 24 * HOUR_MS;

/**
 * Longer than a sweep may run (host.json functionTimeout, 10 min). A token that arrives already
 * inside the margin is kept this long rather than asked for again on every call; and a token
 * fetched because the service refused its predecessor is not dropped again within it. So one
 * sweep costs at most 2 token requests with healthy lifetimes, and at most 4 under a 401.
 */
export const SWEEP_SPAN_MS = 10 * MINUTE_MS;

export interface TokenCacheOptions {
  /** Epoch milliseconds. */
  readonly now?: () => number;
  /** Refresh margin in ms (default EXPIRY_MARGIN_MS). */
  readonly marginMs?: number;
  /** Told when a token arrives that cannot be kept as long as it should (see onWarning()). */
  readonly onWarning?: (message: string) => void;
}

interface Cached {
  readonly token: string;
  /** Epoch ms from which the next caller asks for a new token. */
  readonly refreshAtMs: number;
  readonly fetchedAtMs: number;
  /** Fetched because the service refused the token before it. */
  readonly afterRefusal: boolean;
}

/**
 * One cached token per resource, refreshed `marginMs` before it ends. Concurrent callers share
 * one in-flight request, so a sweep of any size costs at most one request per resource.
 * A failed request is not cached: the next caller tries again.
 */
export class TokenCache implements Tokens {
  readonly #source: TokenSource;
  readonly #now: () => number;
  readonly #marginMs: number;
  readonly #tokens = new Map<string, Cached>();
  readonly #inFlight = new Map<string, Promise<Cached>>();
  /** Resources whose next token replaces one the service refused. */
  readonly #refusedLast = new Set<string>();
  readonly #listeners = new Set<(message: string) => void>();
  #requests = 0;

  constructor(source: TokenSource, options: TokenCacheOptions = {}) {
    this.#source = source;
    this.#now = options.now ?? Date.now;
    this.#marginMs = options.marginMs ?? EXPIRY_MARGIN_MS;
    if (options.onWarning) this.#listeners.add(options.onWarning);
  }

  /** Token requests made so far (for the sweep's economy check and the benchmark). */
  get requests(): number {
    return this.#requests;
  }

  get kind(): TokenSource["kind"] {
    return this.#source.kind;
  }

  /** Listens for warnings (e.g. a sweep's log); returns the function that stops listening. */
  onWarning(listener: (message: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async token(resource: string): Promise<string> {
    const cached = this.#tokens.get(resource);
    if (cached && cached.refreshAtMs > this.#now()) return cached.token;
    let pending = this.#inFlight.get(resource);
    if (!pending) {
      this.#requests += 1;
      pending = this.#source
        .getToken(resource)
        .then((fresh) => this.#keep(resource, fresh))
        .finally(() => this.#inFlight.delete(resource));
      this.#inFlight.set(resource, pending);
    }
    return (await pending).token;
  }

  /**
   * The service answered 401 to a call carrying `token`. Drops it, unless it is the replacement
   * of a token refused less than SWEEP_SPAN_MS ago (then the refusal is not about the token's
   * age, and asking again would only hammer the identity provider). Returns whether sending the
   * call again, with the token the cache now gives, is worth it.
   */
  refused(resource: string, token: string): boolean {
    const cached = this.#tokens.get(resource);
    // Already replaced (or being replaced) by another caller's refusal or by expiry.
    if (cached?.token !== token) return true;
    if (cached.afterRefusal && this.#now() - cached.fetchedAtMs < SWEEP_SPAN_MS) return false;
    this.#tokens.delete(resource);
    this.#refusedLast.add(resource);
    return true;
  }

  /** Forget a token, so the next call fetches a new one. */
  invalidate(resource: string): void {
    this.#tokens.delete(resource);
  }

  #keep(resource: string, fresh: AccessToken): Cached {
    const now = this.#now();
    const ends = Math.min(
      fresh.expiresOnMs,
      now + (fresh.expiresInMs ?? MAX_TOKEN_LIFETIME_MS),
      now + MAX_TOKEN_LIFETIME_MS,
    );
    let refreshAtMs = ends - this.#marginMs;
    if (!(refreshAtMs > now)) {
      // The best the identity provider gives: use it for this sweep rather than asking again on
      // every call (12 requests for 40 certificates, before). A 401 still replaces it.
      refreshAtMs = now + SWEEP_SPAN_MS;
      const left = Number.isFinite(ends)
        ? `${Math.round((ends - now) / 1000)} s`
        : "an unreadable time";
      this.#warn(
        `certsched: the token for ${resource} arrived with ${left} left, inside the ${Math.round(
          this.#marginMs / MINUTE_MS,
        )}-minute refresh margin (check the clock, and the identity provider's expires_on / expires_in); using it for up to ${Math.round(SWEEP_SPAN_MS / MINUTE_MS)} minutes without asking again`,
      );
    }
    const kept: Cached = {
      token: fresh.token,
      refreshAtMs,
      fetchedAtMs: now,
      afterRefusal: this.#refusedLast.delete(resource),
    };
    this.#tokens.set(resource, kept);
    return kept;
  }

  #warn(message: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(message);
      } catch {
        // A listener's failure must not cost the caller its token.
      }
    }
  }
}
