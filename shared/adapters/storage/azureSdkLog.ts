import { LoadOnce } from "../../lib/loadOnce.js";

/**
 * Known noise from the Azure SDKs, kept out of the function's log. @azure/data-tables' generated
 * client always passes the deprecated `baseUri` option to core-client, whatever the caller gives
 * it, so every ledger start printed "azure:core-client:warning The baseUri option for SDK Clients
 * has been deprecated" whenever SDK logging is on (AZURE_LOG_LEVEL): nothing certsched can
 * change, and a warning an operator can do nothing about teaches them to ignore warnings.
 * Every other SDK log line passes through unchanged.
 */
const KNOWN_NOISE: readonly RegExp[] = [
  /The baseUri option for SDK Clients has been deprecated, please use endpoint instead/,
];

const installed = new LoadOnce(() =>
  import("@azure/logger").then(({ AzureLogger }) => {
    const next = AzureLogger.log.bind(AzureLogger);
    AzureLogger.log = (...args: unknown[]) => {
      const text = args.map(String).join(" ");
      if (KNOWN_NOISE.some((noise) => noise.test(text))) return;
      next(...args);
    };
  }),
);

/** Installs the filter once per process; call it before an SDK client is built. */
export function quietKnownSdkWarnings(): Promise<void> {
  return installed.get();
}
