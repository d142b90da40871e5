import type { SeedCertificate, SimCertificate } from "./certificate.js";
import type { Fault, RandomFaults } from "./faults.js";
import type { Hosting } from "./hosting/hosting.js";
import type { SimOperation } from "./operation.js";
import type { ResolvedSimulatorOptions } from "./options.js";
import type { RateLimitStats } from "./rateLimit.js";
import type { RenewedListener } from "./state.js";

/** One request as it arrived, recorded before any handling or fault. */
export interface RecordedRequest {
  operation: SimOperation | "unknown";
  method: string;
  /** The raw (still percent-encoded) path. */
  path: string;
  /** The query string without its "?"; "" when none. */
  query: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** Arrival time on the sim clock. */
  at: Date;
}

/** A running simulator of the Certificate Scheduling Service and the identity provider. */
export interface Simulator {
  /** {base_url}, e.g. "http://127.0.0.1:PORT". */
  readonly baseUrl: string;
  /** {public_base_url}: baseUrl + "/public". */
  readonly publicBaseUrl: string;
  /** {token_url}: the token endpoint is {tokenUrl}/{tenant}/oauth2/token. */
  readonly tokenUrl: string;
  /** The hosting side's TLS endpoint; undefined unless SimulatorOptions.hosting was given. */
  readonly hosting: Hosting | undefined;
  /** The effective settings; clientSecret follows setClientSecret. */
  readonly options: Readonly<ResolvedSimulatorOptions>;
  /** What the rate limit saw (SimulatorOptions.rateLimit); undefined without one. */
  rateLimitStats(): RateLimitStats | undefined;
  /** Every request, in arrival order (the live array; reset() empties it). */
  readonly requests: RecordedRequest[];
  requestsFor(op: SimOperation): RecordedRequest[];
  /**
   * Requests the client ended before their body was whole (a process killed mid-request, a
   * request aborted before its last byte): never acted on, never in `requests`; `body` is what
   * arrived. In arrival order; reset() empties it.
   */
  readonly cutRequests: RecordedRequest[];
  /** Every access_token ever issued, so tests can scan logs for leaks. */
  issuedTokens(): string[];
  /** Queues a fault for an operation; several may be queued and apply in order. */
  inject(op: SimOperation, fault: Fault): void;
  clearFaults(): void;
  /** Seeded random failures of service calls (never token calls); undefined turns them off. */
  setRandomFaults(opts: RandomFaults | undefined): void;
  /** Copies of the certificates, after completing what is due at now(). */
  certificates(): SimCertificate[];
  addCertificate(seed: SeedCertificate): SimCertificate;
  /**
   * Calls `listener` for each renewal the service completes from now on (the record has its new
   * dates); returns the function that stops it. Completion is lazy: it happens at the first read
   * (any service call, certificates(), a TLS handshake on the hosting endpoint) at or after the
   * completion time on the sim clock. The simulator's vault installs new versions with it.
   */
  onCertificateRenewed(listener: RenewedListener): () => void;
  /** Accepted renew calls (v3 and public) for the certificate; 0 when unknown. */
  renewCallsFor(certificateName: string): number;
  /** From now on token requests of the known client fail with 401 AADSTS7000222. */
  expireClientSecret(): void;
  /** Rotates the client secret the token endpoint expects (and un-expires it). */
  setClientSecret(secret: string): void;
  /**
   * Clears recorded requests and faults; certificates, tokens and call counters stay, and so do
   * the hosting side's faults (hosting.clearFaults).
   */
  reset(): void;
  /** Stops listening, drops open connections and ends pending delays. */
  close(): Promise<void>;
}
