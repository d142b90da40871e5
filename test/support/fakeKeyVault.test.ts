import { SecretClient } from "@azure/keyvault-secrets";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeKeyVault, startFakeKeyVault, stubCredential } from "./fakeKeyVault.js";

let vault: FakeKeyVault;

beforeEach(async () => {
  vault = await startFakeKeyVault({ secrets: { s: "v1" } });
});
afterEach(async () => {
  await vault.close();
});

// The fake itself, through the real SecretClient: if this breaks, the store tests mean nothing.
describe("fake Key Vault", () => {
  it("gives each version its own id and serves a pinned version", async () => {
    const client = new SecretClient(vault.url, stubCredential, vault.clientOptions);
    const first = await client.getSecret("s");
    vault.setSecret("s", "v2");
    const latest = await client.getSecret("s");
    const pinned = await client.getSecret("s", { version: first.properties.version ?? "" });

    expect(first.properties.id).toMatch(new RegExp(`^${vault.url}/secrets/s/[0-9a-f]{32}$`));
    expect(latest.properties.version).not.toBe(first.properties.version);
    expect([first.value, latest.value, pinned.value]).toEqual(["v1", "v2", "v1"]);
    expect(vault.reads("s")).toBe(3);
  });

  it("delays an answer when told to", async () => {
    vault.inject({ delayMs: 500 });
    const settled: string[] = [];
    const delayed = new SecretClient(vault.url, stubCredential, vault.clientOptions)
      .getSecret("s")
      .then((secret) => {
        settled.push("delayed");
        return secret.value;
      });
    while (vault.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    // A second client, asking after the first (the fault is used up), is answered first.
    const undelayed = await new SecretClient(vault.url, stubCredential, vault.clientOptions)
      .getSecret("s")
      .then((secret) => secret.value);
    settled.push("undelayed");

    expect([undelayed, await delayed]).toEqual(["v1", "v1"]);
    expect(settled).toEqual(["undelayed", "delayed"]);
  });
});
