import { describe, expect, it } from "vitest";
import { storageConnection } from "../../../../shared/adapters/storage/storageConnection.js";
import { allowsPlainHttp } from "../../../../shared/adapters/storage/table.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { Env } from "../../../../shared/core/settings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

const BASE: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

// A key shaped like a real one: it must never appear in a problem.
const KEY = "c2VjcmV0LWFjY291bnQta2V5LW5ldmVyLXByaW50ZWQ=";
const ACCOUNT = `AccountName=contoso;AccountKey=${KEY}`;
const AZURITE = (port: number) =>
  `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://127.0.0.1:${port - 2}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${port - 1}/devstoreaccount1;TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;

function storageProblems(value: string): string[] {
  try {
    loadSettings({ ...BASE, AzureWebJobsStorage: value });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.every((p) => p.name === "AzureWebJobsStorage")).toBe(true);
    expect((error as Error).message).not.toContain(KEY);
    return problems.map((p) => p.message);
  }
  return [];
}

const HTTPS_ONLY = "must use https (plain http is accepted only for loopback hosts)";

describe("AzureWebJobsStorage: every endpoint is https or loopback", () => {
  it.each([
    [
      "an account over https (the portal's string)",
      `DefaultEndpointsProtocol=https;${ACCOUNT};EndpointSuffix=core.windows.net`,
    ],
    ["an account with the protocol left to its https default", ACCOUNT],
    ["the emulator", "UseDevelopmentStorage=true"],
    ["the emulator, any case", "usedevelopmentstorage=TRUE"],
    ["Azurite's documented full string", AZURITE(10002)],
    [
      "Azurite on localhost and [::1]",
      `DefaultEndpointsProtocol=http;${ACCOUNT};BlobEndpoint=http://localhost:1/a;QueueEndpoint=http://[::1]:2/a;TableEndpoint=http://127.0.0.2:3/a`,
    ],
    [
      "explicit https endpoints with a SAS",
      "BlobEndpoint=https://a.blob.core.windows.net/;TableEndpoint=https://a.table.core.windows.net/;SharedAccessSignature=sv=2022&sig=x",
    ],
  ])("accepts %s", (_, value) => {
    expect(storageProblems(value)).toEqual([]);
  });

  it.each([
    [
      "http to an account (every derived endpoint)",
      `DefaultEndpointsProtocol=http;${ACCOUNT}`,
      ["blob", "queue", "table"].map((s) => `${s} (derived from AccountName) ${HTTPS_ONLY}`),
    ],
    [
      // The old check passed any string with "localhost" in it.
      "a table endpoint whose name only begins with localhost",
      `DefaultEndpointsProtocol=https;${ACCOUNT};TableEndpoint=http://localhost.attacker.example/a`,
      [`TableEndpoint ${HTTPS_ONLY}`],
    ],
    [
      "a plain-http blob endpoint next to a loopback table",
      `${ACCOUNT};BlobEndpoint=http://10.0.0.8/a;TableEndpoint=http://127.0.0.1:10002/a`,
      [`BlobEndpoint ${HTTPS_ONLY}`],
    ],
    [
      "a plain-http queue endpoint",
      `${ACCOUNT};QueueEndpoint=http://queue.example.com/a`,
      [`QueueEndpoint ${HTTPS_ONLY}`],
    ],
    [
      "Azurite's string missing its blob and queue endpoints (they would be derived over http)",
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};TableEndpoint=http://127.0.0.1:10002/devstoreaccount1`,
      ["blob", "queue"].map((s) => `${s} (derived from AccountName) ${HTTPS_ONLY}`),
    ],
    [
      "the emulator behind a proxy that is not loopback",
      "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://proxy.example.com",
      [
        `DevelopmentStorageProxyUri ${HTTPS_ONLY}`,
        ...["blob", "queue", "table"].map((s) => `${s} (UseDevelopmentStorage) ${HTTPS_ONLY}`),
      ],
    ],
    [
      "an endpoint that is not a URL",
      `${ACCOUNT};TableEndpoint=table.example.com`,
      ["TableEndpoint must be an absolute URL"],
    ],
    [
      "a string that is not Key=Value pairs",
      "just-some-text",
      [
        "must be a storage connection string (Key=Value pairs separated by ;)",
        "names no table endpoint (give TableEndpoint or AccountName)",
      ],
    ],
    [
      "a string that leads to no table",
      "BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=1",
      ["names no table endpoint (give TableEndpoint or AccountName)"],
    ],
  ])("refuses %s, naming the endpoint and never quoting the key", (_, value, expected) => {
    expect(storageProblems(value)).toEqual(expected);
  });

  it("applies the same rule to CERTSCHED_LEDGER_TABLE_URI", () => {
    expect(() =>
      loadSettings({
        ...BASE,
        CERTSCHED_LEDGER_TABLE_URI: "http://contoso.table.core.windows.net",
      }),
    ).toThrow(`CERTSCHED_LEDGER_TABLE_URI: ${HTTPS_ONLY}`);
    expect(
      loadSettings({
        ...BASE,
        CERTSCHED_LEDGER_TABLE_URI: "http://127.0.0.1:10002/devstoreaccount1",
      }).ledgerTableUri,
    ).toBe("http://127.0.0.1:10002/devstoreaccount1");
  });
});

describe("the ledger's allowInsecureConnection follows the same rule", () => {
  it.each([
    [AZURITE(10002), true],
    ["UseDevelopmentStorage=true", true],
    [`DefaultEndpointsProtocol=https;${ACCOUNT}`, false],
    // Refused by the settings; and were it ever passed, the SDK would refuse plain http.
    [`${ACCOUNT};TableEndpoint=http://localhost.attacker.example/a`, false],
    [`${ACCOUNT};TableEndpoint=http://10.0.0.8/a`, false],
    [`DefaultEndpointsProtocol=http;${ACCOUNT}`, false],
  ])("%s: %s", (value, allowed) => {
    expect(allowsPlainHttp(value)).toBe(allowed);
  });

  it("reads the emulator's table endpoint as the SDK does (127.0.0.1:10002)", () => {
    expect(storageConnection("UseDevelopmentStorage=true").table?.href).toBe(
      "http://127.0.0.1:10002/",
    );
  });
});
