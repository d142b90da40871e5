import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import {
  logWatcherOnFirstUse,
  tableTransparencyOnFirstUse,
} from "../../../shared/app/lazyTransparency.js";
import type { TransparencySettings } from "../../../shared/core/transparency/transparencySettings.js";
import {
  type CertSpotterSimulator,
  startCertSpotter,
} from "../../../sim/transparency/certSpotterServer.js";
import { uniqueTableName } from "../../support/app.js";
import { seenIssuance } from "../../support/seenIssuances.js";

describe("the Certificate Transparency store built on first use", () => {
  it("says kind table at once, needs no table to be built, and reads what it wrote", async () => {
    expect(
      tableTransparencyOnFirstUse({ connectionString: "UseDevelopmentStorage=true" }).kind,
    ).toBe("table");
    const store = tableTransparencyOnFirstUse({
      connectionString: inject("azuriteTableConnectionString"),
      tableName: uniqueTableName("ctlazy"),
      timeoutMs: 10_000,
    });
    const one = seenIssuance({}, { id: "7" });
    expect(await store.addNew([one])).toHaveLength(1);
    await store.setCursor("contoso", "contoso.com", "7");
    expect(await store.cursor("contoso", "contoso.com")).toBe("7");
    expect((await store.get("contoso", "7"))?.issuance.id).toBe("7");
  });
});

describe("the log watcher built on first question", () => {
  let sim: CertSpotterSimulator;
  beforeEach(async () => {
    sim = await startCertSpotter({ apiKey: "ct-key-VALUE-0123456789" });
  });
  afterEach(async () => {
    await sim.close();
  });
  const settings = (): TransparencySettings => ({
    watch: true,
    url: sim.url,
    apiKeySecretName: "unused",
    domains: [],
    hourlyAllowance: 10,
    completionWindowMs: 1,
    timeoutMs: 5_000,
  });

  it("asks nothing and reads no key until asked; closes whether or not it was used", async () => {
    let keyReads = 0;
    const key = async () => {
      keyReads++;
      return "ct-key-VALUE-0123456789";
    };
    await logWatcherOnFirstUse({ settings, now: () => new Date() }, key).close();
    expect([keyReads, sim.requests.length]).toEqual([0, 0]);

    const watcher = logWatcherOnFirstUse({ settings, now: () => new Date() }, key);
    const page = await watcher.issuances({
      name: { name: "contoso.com", subdomains: true, source: "setting" },
    });
    await watcher.close();
    expect(page).toMatchObject({ kind: "page", issuances: [] });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]?.hadAuthorization).toBe(true);
  });
});
