import { randomBytes } from "node:crypto";
import { DAY_MS } from "../../../shared/lib/time.js";
import {
  type SeedCertificate,
  type Simulator,
  type SimulatorOptions,
  sandboxSettings,
  startSimulator,
} from "../../../sim/index.js";

/**
 * Fault staging for the reliability suites: a simulator with random credentials, due
 * certificates to sweep, and the app's settings for them. The app harness (configureApp,
 * requests, the clock) is the kit's, in test/support/.
 */

/** A simulator whose API key and client secret are random, so a leak cannot hide in a word. */
export function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({
    apiKey: `rel-api-key-${randomBytes(12).toString("hex")}`,
    clientSecret: `rel-client-secret-${randomBytes(12).toString("hex")}`,
    ...options,
  });
}

/**
 * `count` certificates due within the 20-day window, named `<prefix>-<n>`, both targets,
 * expiring a day apart (or spread evenly over `withinDays`).
 */
export function dueCertificates(
  now: Date,
  count: number,
  prefix = "due",
  withinDays = count + 1,
): SeedCertificate[] {
  const step = (withinDays / (count + 1)) * DAY_MS;
  return Array.from({ length: count }, (_, i) => ({
    certificateName: `${prefix}-${i + 1}`,
    rootDomain: `${prefix}-${i + 1}.contoso.com`,
    target: i % 2 === 0 ? ("Cloud App Service" as const) : ("Cloud Key Vault + DNS" as const),
    ...(i % 2 === 0 ? {} : { keyVaultName: "kv-rel", dnsZoneResourceGroup: "rg-dns" }),
    expiryDate: new Date(now.getTime() + (i + 1) * step),
  }));
}

/** certsched's settings for a simulator, as strings (the function app's environment). */
export function settingsFor(sim: Simulator, extra: Record<string, string> = {}) {
  return { ...sandboxSettings(sim), ...extra };
}
