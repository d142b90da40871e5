import { probeTls } from "../shared/adapters/probes/tlsProbe.js";
import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../shared/app/services.js";
import { ariQuestionOf } from "../shared/core/ari/ariRecord.js";
import { parseEndpoint } from "../shared/core/verification/endpoint.js";
import { silentLogger } from "../shared/lib/log.js";
import { DAY_MS } from "../shared/lib/time.js";
import { askAri } from "../shared/usecases/steps/askAri.js";
import { type AriRenewal, renewForAri } from "../shared/usecases/steps/renewForAri.js";
import { SANDBOX_ARI_EXPLANATION } from "../sim/sandboxAri.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";
import type { Sandbox } from "./sandbox.js";

/**
 * The sandbox's ARI renewal: the simulators' CA (sim/acme) says "renew now" for one
 * App Service certificate the service does not list as due; certsched reads what its domain
 * serves (the CertID), asks the CA, and renews it through the service (v3 renew by name,
 * trigger `ari`), as the verification timer does after its run.
 */
export interface SandboxAriPart {
  readonly certificateName: string;
  readonly start: Date;
  readonly end: Date;
  readonly explanationUrl: string;
  /** What became of it; undefined when the CA's word could not be had (said in `problem`). */
  readonly renewal: AriRenewal | undefined;
  readonly problem?: string;
}

/**
 * The App Service certificate furthest from its expiry among those the sweep did not touch
 * (`swept`): surely not on the due list.
 */
function notDue(sandbox: Sandbox, account: string, swept: ReadonlySet<string>) {
  const candidates = sandbox
    .account(account)
    .sim.certificates()
    .filter(
      (c) =>
        c.target === "Cloud App Service" &&
        c.rootDomain !== null &&
        c.refuseRenewal === undefined &&
        !swept.has(c.certificateName) &&
        c.expiryDate.getTime() > Date.now() + 30 * DAY_MS,
    )
    .sort((a, b) => b.expiryDate.getTime() - a.expiryDate.getTime());
  return candidates[0];
}

/** Stages the window for one certificate of `account`, then asks and renews as the timer would. */
export async function sandboxAriRenewal(
  sandbox: Sandbox,
  account: string,
  runtime: AccountPorts,
  /** The certificates the sweep renewed or tried (left alone: the demo is one not due). */
  swept: ReadonlySet<string> = new Set(),
): Promise<SandboxAriPart | undefined> {
  const cert = notDue(sandbox, account, swept);
  const endpoint = cert?.rootDomain ? parseEndpoint(cert.rootDomain) : undefined;
  if (!cert || !endpoint || typeof endpoint === "string") return undefined;
  const { hosting, connectTo } = sandbox.account(account);
  const settings = loadVerifySettings({ CERTSCHED_VERIFY_CONNECT_TO: connectTo });
  const probe = await probeTls(endpoint, {
    connectTo: settings.connectTo,
    timeoutMs: 10_000,
    ca: [hosting.caPem],
  });
  const question = ariQuestionOf(probe.reached ? probe.certificate : undefined);
  if (!question) return undefined;
  sandbox.ari.acme.renewNow(question.certId, SANDBOX_ARI_EXPLANATION);
  const now = runtime.now();
  const record = {
    certificateName: cert.certificateName,
    source: "due-list" as const,
    firstSeen: now,
    lastSeen: now,
  };
  const readings = await askAri(runtime, silentLogger, [{ record, question }]);
  const reading = readings[0];
  const base = {
    certificateName: cert.certificateName,
    start: reading?.ari.start ?? now,
    end: reading?.ari.end ?? now,
    explanationUrl: SANDBOX_ARI_EXPLANATION,
  };
  if (!reading?.ari.start) {
    return { ...base, renewal: undefined, problem: reading?.ari.problem ?? "no answer" };
  }
  const [renewal] = await renewForAri(runtime, silentLogger, readings);
  return { ...base, renewal };
}

/** The part for people: what the CA said, what certsched did, and that it is staged. */
export function renderSandboxAri(
  part: SandboxAriPart,
  paint: Palette,
  width: number | undefined,
): string[] {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const what =
    part.renewal?.outcome === "scheduled"
      ? `certsched renewed it now through the service (v3 renew by name, trigger ari, within the request budget), although the service does not list it as due (with storage, its history records the window and the explanation).`
      : `certsched did not renew it: ${part.renewal?.detail ?? part.problem ?? "nothing was asked"}.`;
  const note = `${paint.bold("ARI, staged in the sandbox:")} the simulators' CA (sim/acme, its ACME directory named in CERTSCHED_ARI_DIRECTORIES) says ${part.certificateName} should be renewed now: its renewal window ${day(part.start)}..${day(part.end)} has started, explained at ${part.explanationUrl} (as a CA does before a mass revocation). ${what}`;
  return ["", ...wrapToWidth(note, width ?? 80)];
}
