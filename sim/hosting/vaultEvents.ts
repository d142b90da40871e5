import { randomUUID } from "node:crypto";
import {
  VAULT_EVENT_TYPES,
  type VaultEventKind,
} from "../../shared/core/vaultEvents/vaultEvent.js";

/**
 * The simulator's vault as an Event Grid system topic: each Key Vault certificate event is
 * POSTed to one webhook URL exactly as Event Grid delivers it (a JSON array, header
 * `aeg-event-type: Notification`), in Event Grid's own schema or in CloudEvents 1.0. Every
 * delivery is recorded; a failed one is recorded, never thrown (Event Grid would retry; the
 * simulator does not).
 */

/** Where the vault's events go (HostingOptions.events). */
export interface VaultEventsOptions {
  /** The webhook, e.g. the local host's `/runtime/webhooks/eventgrid?functionName=...&code=...`. */
  readonly url: string;
  /** Default "eventgrid". */
  readonly schema?: "eventgrid" | "cloudevents";
}

/** The subscription a topic names when the certificate has no cloudSubscriptionId. */
export const SIM_EVENT_SUBSCRIPTION = "00000000-0000-4000-8000-00000000c3a7";
/** The resource group a topic names when the certificate has no resource group. */
export const SIM_EVENT_RESOURCE_GROUP = "rg-certsched-sim";

/** One certificate event's facts, before it is shaped for a schema. */
export interface VaultEventFacts {
  readonly kind: VaultEventKind;
  readonly vaultName: string;
  readonly certificateName: string;
  readonly version: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly subscriptionId?: string | null;
  readonly resourceGroup?: string | null;
  /** Default now. */
  readonly time?: Date;
}

/** One POST of events, as sent and as answered. */
export interface VaultEventDelivery {
  readonly url: string;
  readonly schema: "eventgrid" | "cloudevents";
  readonly eventIds: readonly string[];
  /** The HTTP status; undefined when no answer came (the error says why). */
  readonly status: number | undefined;
  readonly error?: string;
}

/** The system topic of a vault, as Event Grid names it. */
export function vaultTopic(subscriptionId: string, resourceGroup: string, vault: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.KeyVault/vaults/${vault}`;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The event in Event Grid's schema (its id fresh) or CloudEvents 1.0. */
export function vaultEventBody(
  facts: VaultEventFacts,
  schema: "eventgrid" | "cloudevents",
  id: string = randomUUID(),
): Record<string, unknown> {
  const vault = facts.vaultName.toLowerCase();
  const topic = vaultTopic(
    facts.subscriptionId || SIM_EVENT_SUBSCRIPTION,
    facts.resourceGroup || SIM_EVENT_RESOURCE_GROUP,
    vault,
  );
  const data = {
    Id: `https://${vault}.vault.azure.net/certificates/${facts.certificateName}/${facts.version}`,
    VaultName: vault,
    ObjectType: "Certificate",
    ObjectName: facts.certificateName,
    Version: facts.version,
    NBF: seconds(facts.notBefore),
    EXP: seconds(facts.notAfter),
  };
  const type = VAULT_EVENT_TYPES[facts.kind];
  const time = (facts.time ?? new Date()).toISOString();
  if (schema === "cloudevents") {
    return {
      specversion: "1.0",
      id,
      source: topic,
      subject: facts.certificateName,
      type,
      time,
      data,
    };
  }
  return {
    id,
    topic,
    subject: facts.certificateName,
    eventType: type,
    eventTime: time,
    data,
    dataVersion: "1",
    metadataVersion: "1",
  };
}

/** The vault's outlet: where events go now, what was delivered, and what is still in flight. */
export class VaultEventOutlet {
  #target: VaultEventsOptions | undefined;
  readonly deliveries: VaultEventDelivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();

  constructor(target?: VaultEventsOptions) {
    this.set(target);
  }

  /** Sets (undefined: stops) where the next events go. */
  set(target: VaultEventsOptions | undefined): void {
    if (target !== undefined) {
      const url = new URL(target.url);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new RangeError(
          `Simulator option hosting.events.url must be http(s), got ${url.protocol}`,
        );
      }
    }
    this.#target = target;
  }

  /**
   * Sends one event (nothing without a URL); resolves once it is delivered or failed. Facts
   * given as a function are read just after this call returns.
   */
  emit(facts: VaultEventFacts | (() => VaultEventFacts)): Promise<void> {
    const target = this.#target;
    if (target === undefined) return Promise.resolve();
    const sending = this.#deliver(target, facts);
    this.#inFlight.add(sending);
    return sending.finally(() => this.#inFlight.delete(sending));
  }

  /** Resolves when every delivery started so far has been answered or failed. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  async #deliver(
    target: VaultEventsOptions,
    facts: VaultEventFacts | (() => VaultEventFacts),
  ): Promise<void> {
    await null;
    const schema = target.schema ?? "eventgrid";
    const body = vaultEventBody(typeof facts === "function" ? facts() : facts, schema);
    const eventIds = [String(body.id)];
    const contentType =
      schema === "cloudevents"
        ? "application/cloudevents-batch+json; charset=utf-8"
        : "application/json; charset=utf-8";
    try {
      const response = await fetch(target.url, {
        method: "POST",
        headers: { "content-type": contentType, "aeg-event-type": "Notification" },
        body: JSON.stringify([body]),
        signal: AbortSignal.timeout(30_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      this.deliveries.push({ url: target.url, schema, eventIds, status: response.status });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.deliveries.push({
        url: target.url,
        schema,
        eventIds,
        status: undefined,
        error: message,
      });
    }
  }
}
