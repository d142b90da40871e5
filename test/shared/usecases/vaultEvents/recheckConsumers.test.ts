import { describe, expect, it } from "vitest";
import {
  readRecheckMessage,
  recheckConsumers,
} from "../../../../shared/usecases/vaultEvents/recheckConsumers.js";
import { collectingLogger } from "../../../support/app.js";

/**
 * The recheck queue's message, read as untrusted input; the rechecks themselves run end to end in
 * handleVaultEvents.test.ts.
 */

const good = {
  account: "default",
  vaultName: "KV-Events",
  certificateName: "kv-www",
  version: "0123abcd",
  names: ["kv-www"],
  until: "2026-03-02T00:00:00.000Z",
  attempt: 2,
};

describe("readRecheckMessage", () => {
  it("reads the message as an object, a JSON string or bytes (the vault name lower-cased)", () => {
    const expected = { ...good, vaultName: "kv-events" };
    expect(readRecheckMessage(good)).toEqual(expected);
    expect(readRecheckMessage(JSON.stringify(good))).toEqual(expected);
    expect(readRecheckMessage(Buffer.from(JSON.stringify(good)))).toEqual(expected);
  });

  it.each([
    ["not JSON", "{nope", "the message is not JSON"],
    ["an array", [good], "the message is not an object"],
    ["no account", { ...good, account: undefined }, "account: must be an account name"],
    [
      "a bad vault name",
      { ...good, vaultName: "kv_\u001b" },
      "vaultName: must be a Key Vault name",
    ],
    [
      "a bad certificate name",
      { ...good, certificateName: "a/b" },
      "certificateName: must be a vault certificate name",
    ],
    ["a bad version", { ...good, version: "../x" }, "version: must be a vault version"],
    [
      "too many names",
      { ...good, names: Array.from({ length: 501 }, () => "n") },
      "names: must be at most 500 names",
    ],
    ["a bad time", { ...good, until: "soon" }, "until: must be an ISO-8601 time"],
    ["a bad attempt", { ...good, attempt: 0 }, "attempt: must be a whole number from 1 to 1000"],
  ])("refuses %s", (_, message, why) => {
    expect(readRecheckMessage(message)).toBe(why);
  });
});

describe("recheckConsumers", () => {
  it("a message for an account this deployment does not declare is one line, dropped", async () => {
    const { log, lines } = collectingLogger();
    const services = { accounts: ["default"] } as never;
    await recheckConsumers(services, { ...good, account: "other", vaultName: "kv-events" }, log);
    expect(lines).toEqual([
      {
        level: "warn",
        message:
          'certsched vault recheck kv-events/kv-www version 0123abcd (account "other", attempt 2): dropped: the account is not one of this deployment\'s',
      },
    ]);
  });
});
