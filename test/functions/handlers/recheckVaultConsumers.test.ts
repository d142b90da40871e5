import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recheckVaultConsumers } from "../../../functions/handlers/recheckVaultConsumers.js";
import { type AppHarness, startHarness } from "../../support/app.js";

/**
 * The recheck queue's handler, as the host runs it: a malformed message is one line and dropped
 * (never retried); a vault that cannot be read fails the invocation, so the queue delivers it
 * again. The rechecks themselves run end to end in test/shared/usecases/vaultEvents.
 */

let app: AppHarness;
beforeAll(async () => {
  app = await startHarness({ hosting: {} });
  await app.configure({
    CERTSCHED_WATCH: "kv-gone/www-gone=gone.handler.test",
    CERTSCHED_HTTP_TIMEOUT: "5s",
  });
}, 60_000);
afterAll(async () => {
  expect(app.leaks()).toEqual([]);
  await app.close();
});

const lines = (functionName: string) =>
  app.logs.filter((l) => l.functionName === functionName).map((l) => l.message);

describe("recheckVaultConsumers", () => {
  it("a malformed message is one line, dropped (not retried)", async () => {
    await recheckVaultConsumers("{not json", app.context("recheckVaultConsumers"));
    await recheckVaultConsumers(
      { account: "default", vaultName: "kv\u001b" },
      app.context("recheckVaultConsumers"),
    );
    expect(lines("recheckVaultConsumers")).toEqual([
      "certsched vault recheck dropped: the message is not JSON",
      "certsched vault recheck dropped: vaultName: must be a Key Vault name",
    ]);
  });

  it("a vault that cannot be read fails the invocation: the queue delivers it again", async () => {
    const message = {
      account: "default",
      vaultName: "kv-gone",
      certificateName: "www-gone",
      version: "0123abcd",
      names: ["watch:gone.handler.test"],
      until: new Date(Date.now() + 3_600_000).toISOString(),
      attempt: 1,
    };
    await expect(
      recheckVaultConsumers(JSON.stringify(message), app.context("recheckVaultConsumers")),
    ).rejects.toMatchObject({
      code: "UPSTREAM_UNREACHABLE",
      message: expect.stringContaining("the vault could not be read"),
    });
  });
});
