import type { AccessToken, TokenSource } from "./tokenSource.js";

/** Refresh this long before expires_on, so a token never expires mid-sweep (5 min). */
export const EXPIRY_MARGIN_MS = 5 * 60_000;

export interface TokenCacheOptions {
  readonly now?: () => number;
  readonly marginMs?: number;
}

/**
 * One cached token per resource, refreshed `marginMs` before it expires. Concurrent callers
 * share one in-flight request, so a sweep of any size costs at most one request per resource.
 * A failed request is not cached: the next caller tries again.
 */
export class TokenCache {
  readonly #source: TokenSource;
  readonly #now: () => number;
  readonly #marginMs: number;
  readonly #tokens = new Map<string, AccessToken>();
  readonly #inFlight = new Map<string, Promise<AccessToken>>();
  #requests = 0;

  constructor(source: TokenSource, options: TokenCacheOptions = {}) {
    this.#source = source;
    this.#now = options.now ?? Date.now;
    this.#marginMs = options.marginMs ?? EXPIRY_MARGIN_MS;
  }

  /** Token requests made so far (for the sweep's economy check and the benchmark). */
  get requests(): number {
    return this.#requests;
  }

  get kind(): TokenSource["kind"] {
    return this.#source.kind;
  }

  async token(resource: string): Promise<string> {
    const cached = this.#tokens.get(resource);
    if (cached && cached.expiresOnMs - this.#marginMs > this.#now()) return cached.token;
    let pending = this.#inFlight.get(resource);
    if (!pending) {
      this.#requests += 1;
      pending = this.#source.getToken(resource).finally(() => this.#inFlight.delete(resource));
      this.#inFlight.set(resource, pending);
    }
    const fresh = await pending;
    this.#tokens.set(resource, fresh);
    return fresh.token;
  }

  /** Forget a token the service refused, so the next call fetches a new one. */
  invalidate(resource: string): void {
    this.#tokens.delete(resource);
  }
}
