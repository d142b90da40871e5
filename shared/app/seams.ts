import type { CredentialLike } from "../adapters/identity/managedIdentity.js";
import type { Trigger } from "../core/history/events.js";
import type { ConcurrencyControl } from "../core/ports/concurrency.js";
import type { EstateReaders, EstateStore } from "../core/ports/estate.js";
import type { History } from "../core/ports/history.js";
import type { Inventory } from "../core/ports/inventory.js";
import type { Ledger } from "../core/ports/ledger.js";
import type { PreflightProbes } from "../core/ports/preflightProbes.js";
import type { RunQueue } from "../core/ports/runQueue.js";
import type { RunStore } from "../core/ports/runStore.js";
import type { SecretReader } from "../core/ports/secrets.js";
import type { Telemetry } from "../core/ports/telemetry.js";
import type { TransparencyStore } from "../core/ports/transparency.js";
import type { RecheckQueue, VaultEventStore } from "../core/ports/vaultEvents.js";
import type { HttpClient } from "../lib/http/httpClient.js";

/** One value for every account, or one per account (tests with many accounts in memory). */
export type PerAccount<T> = T | ((account: string) => T);

/** An observer of each outbound call: upstream, duration, status. */
export type OnCall = NonNullable<ConstructorParameters<typeof HttpClient>[0]["onCall"]>;

/**
 * What tests and tools may put in place of what the settings would choose; production passes
 * none. Given to the composition root only (createAccountPorts, resetServices): nothing else holds
 * a replacement, so there is one place that says what a process runs on.
 */
export interface Seams {
  readonly now?: () => Date;
  /** Builds the Key Vault reader (tests: a real SecretClient trusting a local fake vault). */
  readonly createSecretReader?: (vaultUrl: string) => SecretReader | Promise<SecretReader>;
  /** The app's identity for managed-identity tokens. */
  readonly credential?: CredentialLike;
  /**
   * Replaces each account's ledger chosen from CERTSCHED_LEDGER_TABLE_URI / AzureWebJobsStorage
   * (one value: every account's; a function: one per account).
   */
  readonly ledger?: PerAccount<Ledger>;
  /** Replaces each account's history, as `ledger`. */
  readonly history?: PerAccount<History>;
  /** Replaces each account's inventory, as `ledger`. */
  readonly inventory?: PerAccount<Inventory>;
  /** Replaces each account's adaptive concurrency, as `ledger`. */
  readonly concurrency?: PerAccount<ConcurrencyControl>;
  /**
   * Replaces what preflight reads for each account, as `ledger`: DNS, ARM and the
   * HTTP challenge (tests of the surfaces that show results; the adapters have their own).
   */
  readonly preflightProbes?: PerAccount<PreflightProbes>;
  /** Replaces what estate discovery reads for each account, as `ledger` (Resource Graph, vaults). */
  readonly estateReaders?: PerAccount<EstateReaders>;
  /** Replaces the estate store (tests and the sandbox: in memory, or on Azurite). */
  readonly estate?: EstateStore;
  /**
   * A certificate (PEM) to trust for CERTSCHED_ARM_URL besides Node's store: the sandbox's local
   * ARM, in a process that did not start with NODE_EXTRA_CA_CERTS naming it.
   */
  readonly armCa?: string;
  /** As armCa, for the CAs' ACME directories (ARI): the sandbox's sim/acme. */
  readonly ariCa?: string;
  /** As armCa, for CERTSCHED_CT_URL: a local HTTPS log watcher. */
  readonly ctCa?: string;
  /** Replaces the run store and queue (tests: a unique table and queue on Azurite). */
  readonly runs?: { readonly store?: RunStore; readonly queue?: RunQueue };
  /** Replaces the Certificate Transparency store (tests and the sandbox: in memory). */
  readonly transparency?: TransparencyStore;
  /** Replaces the Key Vault events store (tests: on Azurite, or one shared by two apps). */
  readonly vaultEvents?: VaultEventStore;
  /** Replaces the recheck queue (tests: a queue on Azurite, or one that records). */
  readonly recheckQueue?: RecheckQueue;
  /** Observer of every outbound call (benchmark); telemetry observes them too when on. */
  readonly onCall?: OnCall;
  /** Replaces the telemetry chosen from the settings (tests: in-memory OpenTelemetry). */
  readonly telemetry?: Telemetry;
  /**
   * The trigger of service requests sent outside a sweep or a renewal by name, for the request
   * count: "http" (the function app's default), "cli" for the CLI.
   */
  readonly requestTrigger?: Trigger;
}
