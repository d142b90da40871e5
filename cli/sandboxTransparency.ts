import { memoryTransparencyStore } from "../shared/adapters/storage/memory/memoryTransparency.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { createServices } from "../shared/app/services.js";
import { memoryHistory } from "../shared/core/ports/history.js";
import { memoryInventory } from "../shared/core/ports/inventory.js";
import type { SeenIssuance } from "../shared/core/transparency/issuance.js";
import {
  issuanceCondition,
  issuanceNames,
  issuanceState,
  verdictText,
} from "../shared/core/transparency/issuanceView.js";
import type { InventoryResult } from "../shared/core/verification/inventoryResult.js";
import { ensureError } from "../shared/lib/errors.js";
import { silentLogger } from "../shared/lib/log.js";
import { redact } from "../shared/lib/redact/redact.js";
import { type TransparencyRun, watchTransparency } from "../shared/usecases/watchTransparency.js";
import { startCertSpotter } from "../sim/transparency/certSpotterServer.js";
import {
  readServedCertificate,
  SANDBOX_CT_RENEWED,
  SANDBOX_CT_STRAY,
  sandboxIssuances,
} from "../sim/transparency/sandboxIssuances.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";
import type { Sandbox } from "./sandbox.js";

/**
 * The sandbox's Certificate Transparency story, after the first account's verification: a
 * simulated Cert Spotter holds the precertificate of the certificate the sandbox serves for
 * www.contoso.com, and a certificate for pay.contoso.com from another CA that nobody here asked
 * for. The watch asks about contoso.com and its subdomains (the inventory's root domain), finds
 * the first expected (its TBS hash is the served certificate's) and the second unexpected.
 */

/** The account whose names the story is about (www.contoso.com, pay.contoso.com). */
export const SANDBOX_CT_ACCOUNT = "contoso";

/** The simulated watcher's throwaway key (long enough to be kept out of logs). */
const SANDBOX_CT_KEY = "sandbox-ct-key-0f3a9c2e71b4";

export interface SandboxTransparencyPart {
  readonly run?: TransparencyRun;
  /** Every issuance the watch keeps, newest first. */
  readonly issuances: readonly SeenIssuance[];
  /** Why the watch could not run, when it could not. */
  readonly problem?: string;
  /** True when the only unexpected issuance is the staged one. */
  readonly passes: boolean;
}

/** Runs the watch for `account` over the verification's readings; never throws. */
export async function sandboxTransparency(
  sandbox: Sandbox,
  account: string,
  results: readonly InventoryResult[],
): Promise<SandboxTransparencyPart> {
  const ct = await startCertSpotter({ apiKey: SANDBOX_CT_KEY });
  try {
    const served = await readServedCertificate(
      sandbox.account(account).hosting,
      SANDBOX_CT_RENEWED.name,
    );
    ct.add(...(await sandboxIssuances({ served, now: new Date() })).all);
    const inventory = await inventoryOf(sandbox, account, results);
    const transparency = memoryTransparencyStore();
    const services = createServices(
      loadSettings({
        ...sandbox.settings,
        CERTSCHED_CT_WATCH: "true",
        CERTSCHED_CT_URL: ct.url,
        CERTSCHED_CT_API_KEY: SANDBOX_CT_KEY,
      }),
      { inventory, history: memoryHistory(), transparency },
    );
    try {
      const run = await watchTransparency(services.forAccount(account), silentLogger, {
        trigger: "cli",
      });
      const issuances = (await transparency.list(account)).items;
      const unexpected = issuances.filter((s) => issuanceState(s) === "unexpected");
      const passes =
        unexpected.length === 1 && unexpected[0]?.issuance.dnsNames[0] === SANDBOX_CT_STRAY.name;
      return { run, issuances, passes };
    } finally {
      await services.close();
    }
  } catch (error) {
    return { issuances: [], problem: redact(ensureError(error).message), passes: false };
  } finally {
    await ct.close();
  }
}

/** The inventory as the verification left it: the due list's names, each with its reading. */
async function inventoryOf(sandbox: Sandbox, account: string, results: readonly InventoryResult[]) {
  const inventory = memoryInventory();
  const at = new Date();
  const certificates = sandbox.account(account).sim.certificates();
  await inventory.upsert(
    certificates.map((c) => ({
      certificateName: c.certificateName,
      ...(c.rootDomain ? { rootDomain: c.rootDomain } : {}),
      source: "due-list" as const,
      seenAt: at,
    })),
  );
  for (const r of results) {
    if (!r.certificateName || (r.pubkeySha256 === undefined && r.tbsSha256 === undefined)) continue;
    await inventory.recordVerification(r.certificateName, {
      at,
      status: r.status,
      source: r.source,
      domain: r.domain,
      detail: r.detail,
      ...(r.pubkeySha256 ? { pubkeySha256: r.pubkeySha256 } : {}),
      ...(r.tbsSha256 ? { tbsSha256: r.tbsSha256 } : {}),
    });
  }
  return inventory;
}

/** The part for people: each issuance, its state and why; the staged one explained. */
export function renderSandboxTransparency(
  part: SandboxTransparencyPart,
  paint: Palette,
  width: number | undefined,
): string[] {
  const wrap = (line: string) => wrapToWidth(line, width ?? 80);
  const heading = `${paint.bold("Certificate Transparency")} (a simulated Cert Spotter; certsched ct): issuances for contoso.com and its subdomains`;
  if (part.problem !== undefined)
    return ["", ...wrap(`${heading}: the watch could not run: ${part.problem}`)];
  const lines = ["", ...wrap(heading)];
  for (const seen of part.issuances) {
    const state = issuanceState(seen);
    const condition = issuanceCondition(seen, new Date());
    const label =
      state === "unexpected"
        ? paint.red("UNEXPECTED")
        : state === "expected"
          ? paint.green("expected")
          : state;
    const line = `  ${label} ${issuanceNames(seen)} by ${seen.issuance.issuer ?? "an unknown issuer"}${condition ? ` (${condition})` : ""}: ${verdictText(seen.verdict)}`;
    lines.push(...wrap(line));
  }
  const note = `${paint.bold("Expected in the sandbox:")} the certificate for ${SANDBOX_CT_STRAY.name} from "${SANDBOX_CT_STRAY.issuer}" is staged: nobody here asked for it. A real watch posts one webhook message, writes a history event and the alert line (infra/alerts/unexpected-issuance.kql), and marks it red in certsched status and the dashboard until someone acknowledges it (certsched ct ack ID --reason ...).${part.passes ? " It is part of the demo, so the exit code stays 0." : ""}`;
  lines.push("", ...wrap(note));
  return lines;
}
