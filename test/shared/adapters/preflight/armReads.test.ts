import { describe, expect, it } from "vitest";
import {
  type Lookup,
  MAX_PAGES,
  readHostNameBindings,
  readNameServers,
  readSites,
} from "../../../../shared/adapters/preflight/armReads.js";

/** The readers through fakes of the two SDKs: what each makes of ARM's answers. */

const lookup: Lookup = {
  credential: { getToken: async () => null },
  signal: new AbortController().signal,
  scope: "https://management.example/.default",
  clientOptions: {
    endpoint: "https://management.example",
    retryOptions: { maxRetries: 0 },
    redirectOptions: { maxRetries: 0 },
    additionalPolicies: [],
  },
};

function dnsSdk(nameServers: unknown) {
  return {
    DnsManagementClient: class {
      zones = { get: async () => ({ nameServers }) };
    },
  } as unknown as typeof import("@azure/arm-dns");
}

/** An app-service SDK whose every list answers `pages`. */
function appServiceSdk(pages: unknown[][]) {
  const pager = () => ({
    byPage: () =>
      (async function* () {
        yield* pages;
      })(),
  });
  return {
    WebSiteManagementClient: class {
      webApps = { list: pager, listHostNameBindings: pager, listHostNameBindingsSlot: pager };
    },
  } as unknown as typeof import("@azure/arm-appservice");
}

describe("readNameServers", () => {
  it("finds a zone's name servers, and is unknown when ARM lists none", async () => {
    const found = await readNameServers(dnsSdk(["ns1.example."]), lookup, "s", "rg", "zone");
    expect(found).toEqual({ kind: "found", value: { nameServers: ["ns1.example."] } });
    const none = await readNameServers(dnsSdk([]), lookup, "s", "rg", "zone");
    expect(none.kind).toBe("unknown");
  });
});

describe("readHostNameBindings", () => {
  it("keeps the host part of each binding's name, lower case", async () => {
    const site = { subscriptionId: "s", resourceGroup: "rg", site: "app" };
    const sdk = appServiceSdk([
      [{ name: "app/WWW.Example.com" }],
      [{ name: "app/api.example.com" }],
    ]);
    expect(await readHostNameBindings(sdk, lookup, site, "app")).toEqual({
      kind: "found",
      value: ["www.example.com", "api.example.com"],
    });
  });
});

describe("readSites", () => {
  it("reads every page of apps, and is unknown past MAX_PAGES", async () => {
    const sdk = appServiceSdk([[{ name: "app", hostNames: ["App.Example.com"] }]]);
    expect(await readSites(sdk, lookup, "s")).toEqual({
      kind: "found",
      value: [{ name: "app", hostNames: ["app.example.com"] }],
    });
    const endless = appServiceSdk(Array.from({ length: MAX_PAGES + 1 }, () => []));
    const answer = await readSites(endless, lookup, "s");
    expect(answer.kind).toBe("unknown");
  });
});
