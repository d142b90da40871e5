import { randomBytes } from "node:crypto";
import { type Inventory, memoryInventory } from "../shared/core/ports/inventory.js";
import { contextLogger } from "../shared/edge/contextLogger.js";
import {
  EVENT_GRID_WEBHOOK,
  type EventGridHandler,
  startLocalServer,
} from "../shared/edge/localServer.js";
import { boundDetail } from "../shared/lib/text/boundDetail.js";
import { escapeControl } from "../shared/lib/text/escapeControl.js";
import { handleVaultEvents } from "../shared/usecases/vaultEvents/handleVaultEvents.js";
import { addEventVersion, SANDBOX_EVENT_FUNCTION } from "../sim/sandboxEvents.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";
import { type Sandbox, sandboxServices } from "./sandbox.js";

/**
 * The sandbox's event-driven check: the local function host (shared/edge/localServer.ts) takes
 * Event Grid deliveries for the Key Vault events function; the account's simulated vault sends
 * them there; a new version is added to a Key Vault certificate after the sweep; the event is
 * handled with the sandbox's services (the use case the function runs); then what the
 * certificate's domain serves is compared with the new version.
 */

/** What the event-driven check saw. */
export interface SandboxEventPart {
  readonly account: string;
  readonly keyVaultName: string;
  readonly certificateName: string;
  readonly domain: string;
  readonly version: string;
  /** The event's id and type as delivered; undefined when no delivery was made. */
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
  /** The local host's answer to the delivery (200: every invocation resolved). */
  readonly deliveryStatus: number | undefined;
  /** The use case's line for each event it handled. */
  readonly handled: readonly string[];
  /** Whether the domain serves the new version, and how long after its creation (ms). */
  readonly served: boolean;
  readonly servedAfterMs: number | undefined;
  readonly problem?: string;
  readonly passes: boolean;
}

const clean = (text: string) => boundDetail(escapeControl(text));

/**
 * The account's Key Vault certificates as the inventory would hold them after a sweep: the
 * sandbox keeps no storage, so the event's use case is given them in memory.
 */
async function vaultInventory(sandbox: Sandbox, name: string): Promise<Inventory> {
  const inventory = memoryInventory();
  const seenAt = new Date();
  await inventory.upsert(
    sandbox
      .account(name)
      .sim.certificates()
      .filter((c) => c.target === "Cloud Key Vault + DNS" && c.keyVaultName)
      .map((c) => ({
        certificateName: c.certificateName,
        id: c.id,
        target: c.target,
        rootDomain: c.rootDomain ?? undefined,
        keyVaultName: c.keyVaultName ?? undefined,
        keyVaultCertificateName: c.keyVaultCertificateName ?? undefined,
        cloudSubscriptionId: c.cloudSubscriptionId ?? undefined,
        dnsZoneResourceGroup: c.dnsZoneResourceGroup ?? undefined,
        serviceExpiry: c.expiryDate,
        source: "due-list" as const,
        seenAt,
      })),
  );
  return inventory;
}

/**
 * The event handler the sandbox's local host runs: what the function runs (handleVaultEvents),
 * with the sandbox's services, the account's inventory in memory, and its hosting CA trusted
 * for the consumers' TLS and the vault (this process did not start with NODE_EXTRA_CA_CERTS).
 */
async function handlerWith(
  sandbox: Sandbox,
  name: string,
  seen: { events: unknown[]; lines: string[]; outcomes: string[] },
): Promise<{ handler: EventGridHandler; close: () => Promise<void> }> {
  const inventory = await vaultInventory(sandbox, name);
  const services = sandboxServices(sandbox, {
    inventory: (account) => (account === name ? inventory : memoryInventory()),
  });
  const caPem = sandbox.account(name).hosting.caPem;
  const options = { ca: [caPem], keyVault: { clientOptions: { tlsOptions: { ca: caPem } } } };
  const handler: EventGridHandler = async (event, context) => {
    seen.events.push(event);
    const run = await handleVaultEvents(services, event, contextLogger(context), options);
    seen.lines.push(...run.outcomes.map((o) => clean(o.line)));
    seen.outcomes.push(...run.outcomes.map((o) => o.line));
    // As the function does: a failure a redelivery may fix makes Event Grid deliver again.
    if (run.failed.length > 0) throw new Error(`${run.failed.length} event(s) failed`);
  };
  return { handler, close: () => services.close() };
}

/** The first event of a delivery: its id and type, as either schema names them. */
function firstEvent(events: readonly unknown[]): { id?: string; type?: string } {
  const first = events[0] as Record<string, unknown> | undefined;
  const text = (v: unknown) => (typeof v === "string" ? clean(v) : undefined);
  const id = text(first?.id);
  const type = text(first?.eventType ?? first?.type);
  return { ...(id ? { id } : {}), ...(type ? { type } : {}) };
}

/** Runs the check for one account (the first); undefined when it has no sample to add to. */
export async function sandboxEventCheck(
  sandbox: Sandbox,
  name: string = sandbox.accounts[0]?.name ?? "",
): Promise<SandboxEventPart | undefined> {
  const account = sandbox.account(name);
  const seen = { events: [] as unknown[], lines: [] as string[], outcomes: [] as string[] };
  const { handler, close } = await handlerWith(sandbox, name, seen);
  const key = randomBytes(16).toString("hex");
  const server = await startLocalServer({
    functionKey: key,
    routes: {},
    eventGrid: { [SANDBOX_EVENT_FUNCTION]: handler },
  }).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  const vault = account.hosting.vault;
  try {
    vault.setEvents({
      url: `${server.origin}${EVENT_GRID_WEBHOOK}?functionName=${SANDBOX_EVENT_FUNCTION}&code=${key}`,
    });
    const addedAt = Date.now();
    const added = addEventVersion(account.sim);
    if (added === undefined) return undefined;
    await vault.eventsSettled();
    const delivery = vault.deliveries.at(-1);
    const settledAt = Date.now();
    const check = consumerVerdict(seen.outcomes, added.rootDomain);
    // From the version's creation in the vault to the use case's answer that it is served.
    const servedAfterMs = check.served ? settledAt - addedAt : undefined;
    const event = firstEvent(seen.events);
    return {
      account: name,
      keyVaultName: added.keyVaultName,
      certificateName: added.certificateName,
      domain: added.rootDomain,
      version: added.version.version,
      eventId: event.id,
      eventType: event.type,
      deliveryStatus: delivery?.status,
      handled: seen.lines,
      served: check.served,
      servedAfterMs,
      ...(check.problem ? { problem: check.problem } : {}),
      passes: delivery?.status === 200 && seen.events.length === 1 && check.served,
    };
  } finally {
    vault.setEvents(undefined);
    await server.close();
    await close();
  }
}

/**
 * Whether the use case's own check found the domain serving the new version: its line says
 * `consumers serve it: <domain>`; otherwise why not, from its line.
 */
function consumerVerdict(
  lines: readonly string[],
  domain: string,
): { served: boolean; problem?: string } {
  const served = lines.some((l) => {
    const at = l.indexOf("consumers serve it: ");
    return (
      at >= 0 &&
      l
        .slice(at)
        .split(/[:;,]\s*/)
        .includes(domain)
    );
  });
  if (served) return { served };
  return { served, problem: clean(lines[0] ?? "the event was not handled") };
}

/** The section `npm start` prints: the event, the consumer check, how soon it was served. */
export function renderSandboxEvent(
  part: SandboxEventPart,
  paint: Palette,
  width: number | undefined,
): string[] {
  const w = width ?? 80;
  const where = `${part.keyVaultName}/${part.certificateName}`;
  const lines = [
    "",
    ...wrapToWidth(
      `${paint.bold("Key Vault event")}: after the sweep a new version of ${where} was added to the simulator's vault, which sent ${part.eventType ?? "no event"} through Event Grid to the local function host (${SANDBOX_EVENT_FUNCTION}, POST ${EVENT_GRID_WEBHOOK}).`,
      w,
    ),
    `  event ${part.eventId ?? "(none)"}: version ${part.version}, answered ${part.deliveryStatus ?? "nothing"}`,
    ...part.handled.slice(0, 5).map((line) => `  ${line}`),
  ];
  const check = part.served
    ? `  consumer check: ${part.domain} serves it: served the new version ${(Math.max(0, part.servedAfterMs ?? 0) / 1000).toFixed(1)} s after it was created.`
    : `  consumer check: ${part.domain} was not seen serving it: ${part.problem ?? "unknown"}`;
  lines.push(check);
  return lines;
}
