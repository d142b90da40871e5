import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { palette } from "../../cli/output/color.js";
import { type Sandbox, sandboxServices, startSandbox } from "../../cli/sandbox.js";
import { renderSandboxAri, sandboxAriRenewal } from "../../cli/sandboxAri.js";
import { SANDBOX_ARI_EXPLANATION } from "../../sim/sandboxAri.js";

/**
 * The sandbox's staged ARI renewal over its real pieces: the hosting endpoint serves the leaf,
 * sim/acme (trusted through Seams.ariCa, this process has no NODE_EXTRA_CA_CERTS for it) says renew
 * now, and the account's simulator receives the v3 renewal by name.
 */

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
}, 60_000);
afterAll(() => sandbox?.close());

describe("the sandbox's ARI renewal", () => {
  it("renews one App Service certificate that is not due, trigger ari, and says so", async () => {
    const account = sandbox.accounts[0]?.name ?? "";
    const sim = sandbox.account(account).sim;
    const due = new Set(
      sim
        .certificates()
        .filter((c) => c.expiryDate.getTime() < Date.now() + 20 * 86_400_000)
        .map((c) => c.certificateName),
    );
    const services = sandboxServices(sandbox);
    try {
      const part = await sandboxAriRenewal(sandbox, account, services.forAccount(account));
      expect(part?.renewal?.outcome).toBe("scheduled");
      const name = part?.certificateName ?? "";
      expect(due.has(name)).toBe(false);
      const renewals = sim.requestsFor("renew");
      expect(renewals).toHaveLength(1);
      expect(renewals[0]?.body).toContain(`"${name}"`);
      expect(
        sandbox.ari.acme.requests.filter((r) => r.path.startsWith("/renewal-info/")),
      ).toHaveLength(1);
      const text = renderSandboxAri(
        part as NonNullable<typeof part>,
        palette({ isTTY: false } as NodeJS.WriteStream, {}),
        200,
      ).join("\n");
      expect(text).toContain(`says ${name} should be renewed now`);
      expect(text).toContain(SANDBOX_ARI_EXPLANATION);
      expect(text).toContain("trigger ari");
    } finally {
      await services.close();
    }
  }, 60_000);
});
