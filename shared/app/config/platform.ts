import type { Env } from "../../core/settings.js";

/**
 * What the platform tells the app through its environment, beside the app's own settings:
 * read on every call, as before (App Service sets WEBSITE_AUTH_ENABLED when Authentication is
 * turned on; tests turn it on and off). The one other place, with loadSettings, that reads
 * process.env below the entry points.
 */
export function platformEnv(env: Env = process.env): { readonly WEBSITE_AUTH_ENABLED?: string } {
  const value = env.WEBSITE_AUTH_ENABLED;
  return value === undefined ? {} : { WEBSITE_AUTH_ENABLED: value };
}
