/** Estate discovery's settings (app/config/estateSettings.ts reads them). */
export interface EstateSettings {
  /** CERTSCHED_ESTATE: the timer discovers only when on (the CLI and GET /api/estate ask anyway). */
  readonly enabled: boolean;
  /** CERTSCHED_ESTATE_EXPIRING_DAYS: an unmanaged certificate expiring this soon is a gap. */
  readonly expiringDays: number;
  /** CERTSCHED_ESTATE_TIMEOUT: one Resource Graph request, one vault's whole listing. */
  readonly timeoutMs: number;
}

/** The bounds of CERTSCHED_ESTATE_EXPIRING_DAYS (and of `--expiring`, `?expiring=`). */
export const MIN_EXPIRING_DAYS = 1;
export const MAX_EXPIRING_DAYS = 365;
export const DEFAULT_EXPIRING_DAYS = 30;
