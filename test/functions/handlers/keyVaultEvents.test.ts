import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyVaultEvents } from "../../../functions/handlers/keyVaultEvents.js";
import { type AppHarness, startHarness } from "../../support/app.js";
import { eventGridEvent } from "../../support/vaultEvents.js";

/**
 * The Event Grid trigger's handler, as the host runs it: bad events
 * never fail the invocation (Event Grid would deliver them again for nothing); an event whose
 * vault could not be read does, naming it, so Event Grid delivers it again.
 */

let app: AppHarness;
beforeAll(async () => {
  app = await startHarness({ hosting: {} });
  // A watched vault nothing answers for: its host reaches the hosting endpoint, which has no
  // certificate for it.
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

describe("keyVaultEvents", () => {
  it("a delivery of forged, unknown and malformed events is lines, never a failed invocation", async () => {
    await keyVaultEvents(
      [
        eventGridEvent({ vaultName: "kv-forged", id: "forged" }),
        {
          ...eventGridEvent({ id: "secret" }),
          eventType: "Microsoft.KeyVault.SecretNewVersionCreated",
        },
        { id: "broken" },
      ],
      app.context("keyVaultEvents"),
    );
    expect(lines("keyVaultEvents")).toEqual([
      expect.stringMatching(
        /^certsched vault event forged \(new-version kv-forged\/.*\): skipped not-watched: /,
      ),
      expect.stringMatching(/^certsched vault event secret: skipped unknown-type: /),
      expect.stringMatching(/^certsched vault event broken: skipped malformed: /),
    ]);
  });

  it("an event whose vault could not be read fails the invocation, naming it", async () => {
    const delivery = [
      eventGridEvent({ vaultName: "kv-gone", certificateName: "www-gone", id: "gone-1" }),
      eventGridEvent({ vaultName: "kv-forged", id: "forged-2" }),
    ];
    await expect(keyVaultEvents(delivery, app.context("keyVaultEvents"))).rejects.toMatchObject({
      code: "UPSTREAM_UNREACHABLE",
      retriable: true,
      message: "certsched vault events failed, to be delivered again: gone-1",
    });
  });
});
