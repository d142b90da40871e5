import type { WatchedName } from "./issuance.js";

/** Cert Spotter's API, the default log watcher. */
export const CERT_SPOTTER_URL = "https://api.certspotter.com";

/** The Certificate Transparency watch's settings (app/config/transparencySettings.ts reads them). */
export interface TransparencySettings {
  /** CERTSCHED_CT_WATCH: the timer asks the log watcher only when on. */
  readonly watch: boolean;
  /** CERTSCHED_CT_URL: the watcher's base URL (Cert Spotter's, or the simulator's). */
  readonly url: string;
  /** CERTSCHED_CT_API_KEY, given directly (local use); else read from Key Vault by `apiKeySecretName`. */
  readonly apiKey?: string | undefined;
  /** CERTSCHED_CT_API_KEY_SECRET_NAME. */
  readonly apiKeySecretName: string;
  /** CERTSCHED_CT_DOMAINS: names watched besides the inventory's. */
  readonly domains: readonly WatchedName[];
  /** CERTSCHED_CT_HOURLY_ALLOWANCE: requests per UTC hour, every account together. */
  readonly hourlyAllowance: number;
  /** CERTSCHED_CT_COMPLETION_WINDOW: how long after a request its issuance counts as certsched's. */
  readonly completionWindowMs: number;
  /** CERTSCHED_CT_TIMEOUT: one request to the watcher. */
  readonly timeoutMs: number;
}
