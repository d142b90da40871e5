import type { Env } from "../../core/settings.js";

/**
 * What the platform and the Functions host read from the app's environment, beside certsched's
 * own settings: WEBSITE_AUTH_ENABLED (App Service sets it when Authentication is on),
 * CERTSCHED_RENEWAL_SCHEDULE (the host reads it for the timer; the dashboard shows the next run)
 * and WEBSITE_TIME_ZONE (the host's time zone for NCRONTAB). Read on every call, as the host
 * does; the one other place, with loadSettings, that reads process.env below the entry points.
 */
export type PlatformEnv = Env & {
  readonly WEBSITE_AUTH_ENABLED?: string;
  readonly CERTSCHED_RENEWAL_SCHEDULE?: string;
  readonly WEBSITE_TIME_ZONE?: string;
};

const NAMES = ["WEBSITE_AUTH_ENABLED", "CERTSCHED_RENEWAL_SCHEDULE", "WEBSITE_TIME_ZONE"] as const;

export function platformEnv(env: Env = process.env): PlatformEnv {
  const picked: Record<string, string> = {};
  for (const name of NAMES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}
