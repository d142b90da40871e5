import type { TableTransparencyOptions } from "../adapters/storage/tableTransparency.js";
import type { LogWatcher, TransparencyStore } from "../core/ports/transparency.js";
import type { TransparencySettings } from "../core/transparency/transparencySettings.js";
import { LoadOnce } from "../lib/loadOnce.js";
import type { OnCall } from "./seams.js";

/**
 * The Certificate Transparency adapters, each module imported on first use: the timer that
 * needs them runs a few times a day, and no other function should pay for loading them.
 */

/** The store in table storage. */
export function tableTransparencyOnFirstUse(options: TableTransparencyOptions): TransparencyStore {
  const once = new LoadOnce(async () =>
    (await import("../adapters/storage/tableTransparency.js")).createTableTransparencyStore(
      options,
    ),
  );
  const store = () => once.get();
  return {
    kind: "table",
    cursor: async (...a) => (await store()).cursor(...a),
    setCursor: async (...a) => (await store()).setCursor(...a),
    addNew: async (...a) => (await store()).addNew(...a),
    list: async (...a) => (await store()).list(...a),
    get: async (...a) => (await store()).get(...a),
    setVerdict: async (...a) => (await store()).setVerdict(...a),
    claimNotice: async (...a) => (await store()).claimNotice(...a),
    markNotified: async (...a) => (await store()).markNotified(...a),
    releaseNotice: async (...a) => (await store()).releaseNotice(...a),
    acknowledge: async (...a) => (await store()).acknowledge(...a),
    watcherState: async (...a) => (await store()).watcherState(...a),
    pause: async (...a) => (await store()).pause(...a),
    takeRequest: async (...a) => (await store()).takeRequest(...a),
  };
}

export interface WatcherOptions {
  readonly settings: () => TransparencySettings;
  readonly now: () => Date;
  readonly onCall?: OnCall | undefined;
  /** A certificate (PEM) trusted for CERTSCHED_CT_URL besides Node's store (tests). */
  readonly ca?: string | undefined;
}

/** Cert Spotter's client, asking with `apiKey`, loaded on its first question. */
export function logWatcherOnFirstUse(
  options: WatcherOptions,
  apiKey: () => Promise<string | undefined>,
): LogWatcher {
  const once = new LoadOnce(async () => {
    const { createCertSpotterClient } = await import(
      "../adapters/transparency/certSpotterClient.js"
    );
    const settings = options.settings();
    return createCertSpotterClient({
      baseUrl: settings.url,
      apiKey,
      timeoutMs: settings.timeoutMs,
      now: options.now,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.onCall ? { onCall: options.onCall } : {}),
    });
  });
  return {
    issuances: async (...a) => (await once.get()).issuances(...a),
    close: async () => {
      const open = await once.begun()?.catch(() => undefined);
      await open?.close();
    },
  };
}
