import { createHash, randomBytes } from "node:crypto";
import { probeTls } from "../shared/adapters/probes/tlsProbe.js";
import { parseConnectTo } from "../shared/core/verification/connectTo.js";
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

/** The event handler the sandbox's local host runs: what the function does, with these services. */
function handlerWith(
  sandbox: Sandbox,
  seen: { events: unknown[]; lines: string[] },
): { handler: EventGridHandler; close: () => Promise<void> } {
  const services = sandboxServices(sandbox);
  const handler: EventGridHandler = async (event, context) => {
    seen.events.push(event);
    const run = await handleVaultEvents(services, event, contextLogger(context));
    seen.lines.push(...run.outcomes.map((o) => clean(o.line)));
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
  const seen = { events: [] as unknown[], lines: [] as string[] };
  const { handler, close } = handlerWith(sandbox, seen);
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
    const added = addEventVersion(account.sim);
    if (added === undefined) return undefined;
    await vault.eventsSettled();
    const delivery = vault.deliveries.at(-1);
    const check = await servesVersion(sandbox, name, added.rootDomain, added.version.der);
    const created = added.version.created * 1000;
    const servedAfterMs = check.servedAt === undefined ? undefined : check.servedAt - created;
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
      served: check.servedAt !== undefined,
      servedAfterMs,
      ...(check.problem ? { problem: check.problem } : {}),
      passes: delivery?.status === 200 && seen.events.length === 1 && check.servedAt !== undefined,
    };
  } finally {
    vault.setEvents(undefined);
    await server.close();
    await close();
  }
}

/** Probes the domain as verification does; when it serves these bytes, when it was seen. */
async function servesVersion(
  sandbox: Sandbox,
  name: string,
  domain: string,
  der: Buffer,
): Promise<{ servedAt?: number; problem?: string }> {
  const account = sandbox.account(name);
  const result = await probeTls(
    { host: domain, port: 443 },
    {
      connectTo: parseConnectTo(account.connectTo),
      timeoutMs: 10_000,
      ca: [account.hosting.caPem],
    },
  );
  if (!result.reached) return { problem: clean(`${result.step}: ${result.message}`) };
  const wanted = createHash("sha256").update(der).digest("hex").toUpperCase();
  if (result.certificate.thumbprint.toUpperCase() !== wanted) {
    return { problem: `${domain} still serves another certificate` };
  }
  return { servedAt: Date.now() };
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
    ? `  consumer check: ${part.domain} serves it: served the new version ${Math.max(0, Math.round((part.servedAfterMs ?? 0) / 1000))} s after it was created.`
    : `  consumer check: ${part.domain} does not serve it: ${part.problem ?? "unknown"}`;
  lines.push(check);
  return lines;
}
