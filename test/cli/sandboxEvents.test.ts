import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { palette } from "../../cli/output/color.js";
import { type Sandbox, startSandbox } from "../../cli/sandbox.js";
import {
  renderSandboxEvent,
  type SandboxEventPart,
  sandboxEventCheck,
} from "../../cli/sandboxEvents.js";
import { SAMPLE_EVENT_CERTIFICATE } from "../../sim/sandboxEvents.js";

/**
 * The sandbox's event-driven check, end to end over loopback: a version added to contoso's
 * vault, the vault's Event Grid delivery to the local function host, the handler invoked once,
 * whose use case confirms the version with the vault and verifies the certificate's domain,
 * finding it serving the new version.
 */

let sandbox: Sandbox;
let part: SandboxEventPart | undefined;

beforeAll(async () => {
  sandbox = await startSandbox();
  part = await sandboxEventCheck(sandbox, "contoso");
}, 60_000);
afterAll(() => sandbox?.close());

describe("the sandbox's Key Vault event", () => {
  it("is delivered to the local host as Event Grid does, answered 200, handled once", () => {
    const vault = sandbox.account("contoso").hosting.vault;
    expect(part).toBeDefined();
    expect(part?.certificateName).toBe(SAMPLE_EVENT_CERTIFICATE);
    expect(part?.eventType).toBe("Microsoft.KeyVault.CertificateNewVersionCreated");
    expect(part?.deliveryStatus).toBe(200);
    expect(vault.deliveries).toHaveLength(1);
    expect(vault.deliveries[0]?.eventIds).toEqual([part?.eventId]);
    // The version the event names is the vault's current one.
    const current = vault.versions(part?.keyVaultName ?? "", SAMPLE_EVENT_CERTIFICATE).at(-1);
    expect(part?.version).toBe(current?.version);
  });

  it("finds the consumer serving the new version within seconds of its creation; passes", () => {
    expect(part?.served).toBe(true);
    expect(part?.servedAfterMs).toBeGreaterThanOrEqual(0);
    expect(part?.servedAfterMs).toBeLessThan(60_000);
    expect(part?.passes).toBe(true);
  });

  it("prints the event, the consumer check and how soon it was served", () => {
    const text = renderSandboxEvent(
      part as SandboxEventPart,
      palette({ isTTY: false, write: () => {} } as never, {}),
      200,
    ).join("\n");
    expect(text).toContain("Microsoft.KeyVault.CertificateNewVersionCreated");
    expect(text).toContain(`event ${part?.eventId}: version ${part?.version}, answered 200`);
    expect(text).toMatch(/served the new version \d+\.\d s after it was created/);
    // certsched's own check said so: the use case's line, from the verification it ran.
    expect(part?.handled.join("\n")).toMatch(/: done: .*consumers serve it: api\.contoso\.com/);
  });

  it("stops sending events when it is done: a later version reaches no one", async () => {
    const vault = sandbox.account("contoso").hosting.vault;
    const now = new Date();
    vault.addVersion(part?.keyVaultName ?? "", SAMPLE_EVENT_CERTIFICATE, {
      notBefore: now,
      notAfter: new Date(now.getTime() + 86_400_000),
    });
    await vault.eventsSettled();
    expect(vault.deliveries).toHaveLength(1);
  });

  it("does not pass when the consumer lags: the check finds it behind and rechecks later", async () => {
    const contoso = sandbox.account("contoso");
    contoso.hosting.setVaultLag(SAMPLE_EVENT_CERTIFICATE, 86_400_000);
    const lagging = await sandboxEventCheck(sandbox, "contoso");

    expect(lagging?.deliveryStatus).toBe(200);
    expect(lagging?.served).toBe(false);
    expect(lagging?.passes).toBe(false);
    expect(lagging?.handled.join("\n")).toMatch(/behind: api\.contoso\.com; checking again at /);
  });
});
