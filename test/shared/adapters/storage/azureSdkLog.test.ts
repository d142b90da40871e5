import { AzureLogger, createClientLogger, getLogLevel, setLogLevel } from "@azure/logger";
import { afterAll, describe, expect, inject, it } from "vitest";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { uniqueTableName } from "../../../support/app.js";

// What reaches the SDK's log output, captured under the filter certsched installs on top.
const lines: string[] = [];
const levelBefore = getLogLevel();
AzureLogger.log = (...args: unknown[]) => {
  lines.push(args.map(String).join(" "));
};
// The host (or an operator chasing a problem) may turn SDK logging on: the noise showed then.
setLogLevel("warning");

afterAll(() => {
  setLogLevel(levelBefore);
});

describe("Azure SDK log lines while the Table ledger starts", () => {
  it("drops the SDK's own baseUri deprecation warning and keeps every other line", async () => {
    const ledger = tableLedger({
      connectionString: inject("azuriteTableConnectionString"),
      tableName: uniqueTableName("sdklog"),
    });
    await ledger.open();
    await ledger.read(1);
    createClientLogger("certsched-test").warning("a warning certsched did not cause");

    expect(lines.some((line) => line.includes("baseUri"))).toBe(false);
    expect(lines).toContainEqual(expect.stringContaining("a warning certsched did not cause"));
  });
});
