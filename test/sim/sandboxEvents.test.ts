import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../sim/index.js";
import { sandboxAccounts } from "../../sim/sandbox.js";
import { addEventVersion, SAMPLE_EVENT_CERTIFICATE } from "../../sim/sandboxEvents.js";

/**
 * The sandbox's event sample (sim/sandboxEvents.ts): contoso's Key Vault certificate whose
 * consumer serves at once gets a new, current version; a simulator without it gets none.
 */

let contoso: Simulator;
let fabrikam: Simulator;
beforeAll(async () => {
  const [first, second] = sandboxAccounts(new Date());
  contoso = await startSimulator({ ...first?.options, hosting: {} });
  fabrikam = await startSimulator({ ...second?.options, hosting: {} });
});
afterAll(async () => {
  await Promise.all([contoso?.close(), fabrikam?.close()]);
});

describe("addEventVersion", () => {
  it("adds a current version to contoso's sample, created now, where its domain is served", () => {
    const before = Date.now();
    const added = addEventVersion(contoso);
    expect(added).toMatchObject({
      keyVaultName: "kv-contoso",
      certificateName: SAMPLE_EVENT_CERTIFICATE,
      rootDomain: "api.contoso.com",
    });
    const versions = contoso.hosting?.vault.versions("kv-contoso", SAMPLE_EVENT_CERTIFICATE) ?? [];
    expect(versions).toHaveLength(2);
    expect(versions.at(-1)?.version).toBe(added?.version.version);
    expect((added?.version.created ?? 0) * 1000).toBeGreaterThanOrEqual(
      Math.floor(before / 1000) * 1000,
    );
  });

  it("nothing for an account without the sample", () => {
    expect(addEventVersion(fabrikam)).toBeUndefined();
  });
});
