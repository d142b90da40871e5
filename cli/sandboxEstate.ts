import { memoryEstateStore } from "../shared/adapters/storage/memory/memoryEstate.js";
import { type EstateEntryView, estateView } from "../shared/core/estate/estateView.js";
import { memoryInventory } from "../shared/core/ports/inventory.js";
import type { Logger } from "../shared/lib/log.js";
import { boundDetail } from "../shared/lib/text/boundDetail.js";
import { discoverEstate } from "../shared/usecases/estate/discoverEstate.js";
import { SANDBOX_ESTATE_UNMANAGED } from "../sim/sandboxEstate.js";

export { SANDBOX_ESTATE_ACCOUNT } from "../sim/sandboxEstate.js";

import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";
import type { Sandbox } from "./sandbox.js";
import { sandboxServices } from "./sandbox.js";

/**
 * The sandbox's estate: Resource Graph in the sandbox's Resource Manager and the account's
 * simulated vault hold contoso's certificates as Azure would (seedSandboxEstate), among them one
 * certsched does not keep, on an Application Gateway listener, expiring in 9 days. The section
 * runs the real discovery (what `certsched estate` and the timer run) and explains that one.
 */

/** What the estate section found. */
export interface SandboxEstatePart {
  readonly account: string;
  readonly certificates: number;
  readonly managed: number;
  /** The unmanaged and expiring certificate on the gateway, as the report gives it. */
  readonly unmanaged: EstateEntryView | undefined;
  readonly boundNowhere: readonly EstateEntryView[];
  readonly problems: readonly string[];
  readonly passes: boolean;
}

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export async function sandboxEstate(sandbox: Sandbox, name: string): Promise<SandboxEstatePart> {
  const account = sandbox.account(name);
  const inventory = memoryInventory();
  const seenAt = new Date();
  // The inventory as a sweep leaves it (the sandbox keeps no storage).
  await inventory.upsert(
    account.sim.certificates().map((c) => ({
      certificateName: c.certificateName,
      rootDomain: c.rootDomain ?? undefined,
      keyVaultName: c.keyVaultName ?? undefined,
      source: "due-list" as const,
      seenAt,
    })),
  );
  const services = sandboxServices(sandbox, {
    inventory: (a) => (a === name ? inventory : memoryInventory()),
    estate: memoryEstateStore(),
  });
  try {
    const keyVault = { clientOptions: { tlsOptions: { ca: account.hosting.caPem } } };
    const run = await discoverEstate(services.forAccount(name), quiet, {
      trigger: "cli",
      keep: false,
      keyVault,
    });
    const view = estateView(run.report);
    const unmanaged = view.entries.find(
      (e) => e.gaps.includes("unmanaged-expiring") && e.kind === "application-gateway",
    );
    return {
      account: name,
      certificates: view.counts.certificates,
      managed: view.counts.managed,
      unmanaged,
      boundNowhere: view.entries.filter((e) => e.gaps.includes("bound-nowhere")),
      problems: view.problems.map((p) => p.detail),
      passes:
        unmanaged?.name === SANDBOX_ESTATE_UNMANAGED.certificate && view.problems.length === 0,
    };
  } finally {
    await services.close();
  }
}

function daysLeft(entry: EstateEntryView): number {
  return Math.floor((Date.parse(entry.expiresAt ?? "") - Date.now()) / 86_400_000);
}

/** The section `npm start` prints. */
export function renderSandboxEstate(
  part: SandboxEstatePart,
  paint: Palette,
  width: number | undefined,
): string[] {
  const w = width ?? 80;
  const u = part.unmanaged;
  const lines = [
    "",
    ...wrapToWidth(
      `${paint.bold("Estate")}: Resource Graph and the vaults of account ${part.account} show ${part.certificates} certificates; certsched keeps ${part.managed}.`,
      w,
    ),
  ];
  if (u === undefined) {
    lines.push(
      `  no unmanaged certificate expiring was found${part.problems.length ? `: ${part.problems.join("; ")}` : ""}`,
    );
    return lines;
  }
  const bound = u.boundTo.map((b) => `${b.kind} ${b.hostName ?? b.resourceId}`).join(", ");
  const request = u.proposal?.request;
  const text = [
    `${paint.red("Unmanaged certificate expiring in")} ${daysLeft(u)} days on an Application Gateway: ${u.name}, bound to ${bound}, in ${u.subscriptionId}/${u.resourceGroup ?? "?"}, issued by ${u.issuer ?? "an unknown issuer"}, taken from ${u.keyVaultId ?? "no vault"}.`,
    "Nobody asked certsched to keep it: the gateway takes it from a team's vault, and nothing renews it there.",
    `To keep it, certsched would create ${request?.certificateName ?? "?"} for ${request?.rootDomain ?? "?"} (${request?.target ?? "?"}, vault ${request && "keyVaultName" in request ? request.keyVaultName : "?"}); you fill in ${(u.proposal?.missing ?? []).join(", ")}. Nothing was sent: certsched estate --json shows the whole request.`,
    ...part.boundNowhere.map(
      (b) => `Bound nowhere: ${b.name} (${b.kind}), expires ${b.expiresAt?.slice(0, 10) ?? "?"}.`,
    ),
    "certsched estate prints this for any account; the discoverEstate timer alerts once when a certificate enters the set.",
  ];
  for (const line of text) lines.push(...wrapToWidth(boundDetail(line, 2_000), w, "  ", "    "));
  return lines;
}
