import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AzureTypes, checkResources, declaredResources, formatProblem } from "./azureTypes.js";
import { findBicepFiles, parseBicep, parseBicepSource, resources } from "./bicepTree.js";

// Every resource in infra/**/*.bicep against Azure's published resource types (the data the
// Bicep compiler checks with, copied into test/infra/azure-types/). See azureTypes.ts.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const types = new AzureTypes(resolve(repoRoot, "test/infra/azure-types"));
const files = findBicepFiles(join(repoRoot, "infra")).map((f) => parseBicep(f, repoRoot));
const declared = files.flatMap((f) => declaredResources(f));

/** Problems of a Bicep snippet, as "path: message" lines. */
function check(source: string): string[] {
  const file = parseBicepSource(source, "snippet.bicep");
  return checkResources(declaredResources(file), types).map((p) => `${p.path}: ${p.message}`);
}

describe("infra against Azure's resource types", () => {
  it("walks every resource declaration of infra/", () => {
    // The same count bicepTree finds (it sees nested declarations too), and a plausible one.
    expect(declared.length).toBe(files.flatMap((f) => resources(f)).length);
    expect(declared.length).toBeGreaterThanOrEqual(20);
    expect(new Set(declared.map((r) => `${r.type}@${r.apiVersion}`))).toEqual(
      new Set([
        "Microsoft.Authorization/roleAssignments@2022-04-01",
        "Microsoft.EventGrid/systemTopics@2025-02-15",
        "Microsoft.EventGrid/systemTopics/eventSubscriptions@2025-02-15",
        "Microsoft.Insights/actionGroups@2023-01-01",
        "Microsoft.Insights/components@2020-02-02",
        "Microsoft.Insights/scheduledQueryRules@2023-12-01",
        "Microsoft.KeyVault/vaults@2023-07-01",
        "Microsoft.KeyVault/vaults/secrets@2023-07-01",
        "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31",
        "Microsoft.OperationalInsights/workspaces@2023-09-01",
        "Microsoft.Storage/storageAccounts@2023-05-01",
        "Microsoft.Storage/storageAccounts/blobServices@2023-05-01",
        "Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01",
        "Microsoft.Storage/storageAccounts/tableServices@2023-05-01",
        "Microsoft.Storage/storageAccounts/queueServices@2023-05-01",
        "Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01",
        "Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01",
        "Microsoft.Web/serverfarms@2024-04-01",
        "Microsoft.Web/sites@2024-04-01",
        "Microsoft.Web/sites/config@2024-04-01",
      ]),
    );
  });

  it("declares only types, API versions, properties and values Azure publishes", () => {
    expect(checkResources(declared, types).map(formatProblem)).toEqual([]);
  });
});

describe("the checker catches", () => {
  it("nothing in a correct resource (so the cases below fail for their own reason)", () => {
    expect(
      check(`
resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: 'plan'
  location: 'westeurope'
  sku: { name: 'FC1', tier: 'FlexConsumption' }
  kind: 'functionapp'
  properties: { reserved: true }
}`),
    ).toEqual([]);
  });

  it("an unknown property at depth", () => {
    expect(
      check(`
resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: 'app'
  location: 'westeurope'
  properties: {
    functionAppConfig: {
      scaleAndConcurrency: {
        maximumInstanceCount: 100
        instanceMemoryMb: 2048
      }
    }
  }
}`),
    ).toEqual([
      "properties.functionAppConfig.scaleAndConcurrency.instanceMemoryMb: unknown property 'instanceMemoryMb' (did you mean 'instanceMemoryMB'?)",
    ]);
  });

  it("an unknown property inside an array of objects", () => {
    const problems = check(`
resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: 'app'
  location: 'westeurope'
  properties: {
    siteConfig: {
      appSettings: [
        { name: 'A', value: 'x' }
        { name: 'B', vaule: 'y' }
      ]
    }
  }
}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^properties\.siteConfig\.appSettings\[1\]\.vaule: unknown property 'vaule': /,
    );
  });

  it("a string literal outside the type's enum", () => {
    expect(
      check(`
resource st 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: 'stcert'
  location: 'westeurope'
  kind: 'StorageV3'
  sku: { name: 'Standard_LRS' }
  properties: { accessTier: 'Warm', networkAcls: { defaultAction: 'allow' } }
}`),
    ).toEqual([
      "properties.accessTier: 'Warm' is not allowed: expected 'Hot', 'Cool', 'Premium', 'Cold'",
      "properties.networkAcls.defaultAction: 'allow' is not allowed: expected 'Allow', 'Deny' (did you mean 'Allow'?)",
    ]);
    // kind is an open enum in Azure's data (any string is accepted): not reported, as Bicep does not.
  });

  it("enum values in both branches of a condition, but not values from parameters", () => {
    expect(
      check(`
param tls string
resource st 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: 'stcert'
  location: 'westeurope'
  kind: 'StorageV2'
  sku: { name: 'Standard_LRS' }
  properties: { accessTier: tls == 'x' ? 'Hot' : 'Lukewarm', networkAcls: { defaultAction: tls } }
}`),
    ).toEqual([expect.stringMatching(/^properties\.accessTier: 'Lukewarm' is not allowed/)]);
  });

  it("a missing required property, at the top and nested", () => {
    expect(
      check(`
resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: 'kv-x'
  properties: {
    tenantId: subscription().tenantId
    sku: { family: 'A' }
  }
}`),
    ).toEqual([
      "properties.sku: missing required property 'name'",
      ": missing required property 'location'",
    ]);
  });

  it("a read-only property set", () => {
    expect(
      check(`
resource id 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: 'id'
  location: 'westeurope'
  properties: { clientId: 'x' }
}`),
    ).toEqual([expect.stringMatching(/^properties(\.clientId)?: /)]);
  });

  it("an unknown API version, naming the data file to add", () => {
    const problems = check(`
resource vault 'Microsoft.KeyVault/vaults@2023-07-02' = {
  name: 'kv-x'
  location: 'westeurope'
}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("no type data for Microsoft.KeyVault at API version 2023-07-02");
    expect(problems[0]).toContain("add microsoft.keyvault@2023-07-02.json");
    expect(problems[0]).toContain("data here covers Microsoft.KeyVault at 2023-07-01");
  });

  it("a provider with no data at all, naming the file", () => {
    expect(
      check(`
resource kv 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: 'vnet'
  location: 'westeurope'
}`),
    ).toEqual([expect.stringContaining("add microsoft.network@2024-05-01.json to ")]);
  });

  it("a type the API version does not have, and a malformed version", () => {
    expect(
      check(`
resource a 'Microsoft.KeyVault/vaultz@2023-07-01' = {
  name: 'a'
}
resource b 'Microsoft.KeyVault/vaults@latest' = {
  name: 'b'
}`),
    ).toEqual([
      expect.stringMatching(
        /^: Microsoft\.KeyVault\/vaultz is not a resource type at API version 2023-07-01 .*'Microsoft\.KeyVault\/vaults'/,
      ),
      ": 'latest' is not an API version (yyyy-mm-dd, optionally -preview)",
    ]);
  });

  it("discriminated unions: the variant's own properties and an unknown variant", () => {
    expect(
      check(`
resource app 'Microsoft.Web/sites@2024-04-01' existing = {
  name: 'app'
}
resource auth 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: app
  name: 'authsettingsV2'
  properties: {
    platform: { enabled: true }
    globalValidation: { requireAuthentication: true, unauthenticatedClientAction: 'Return401' }
  }
}
resource logs 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: app
  name: 'logs'
  properties: {
    platform: { enabled: true }
  }
}
resource other 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: app
  name: 'nonsense'
}`),
    ).toEqual([
      expect.stringMatching(/^properties\.platform: unknown property 'platform'/),
      expect.stringMatching(/^name: 'nonsense' is not allowed: expected .*'authsettingsV2'/),
    ]);
  });

  it("Event Grid (a transcribed subset): destination and dead-letter variants, names, read-only", () => {
    const subscription = (destination: string, extra = "") => `
resource topic 'Microsoft.EventGrid/systemTopics@2025-02-15' existing = {
  name: 'evgt'
}
resource sub 'Microsoft.EventGrid/systemTopics/eventSubscriptions@2025-02-15' = {
  parent: topic
  name: 'certsched'
  properties: {
    destination: ${destination}
    eventDeliverySchema: 'EventGridSchema'
    filter: { includedEventTypes: ['Microsoft.KeyVault.CertificateExpired'] }
    retryPolicy: { maxDeliveryAttempts: 30, eventTimeToLiveInMinutes: 1440 }
    deadLetterWithResourceIdentity: {
      identity: { type: 'SystemAssigned' }
      deadLetterDestination: {
        endpointType: 'StorageBlob'
        properties: { resourceId: 'st', blobContainerName: 'dead' }
      }
    }${extra}
  }
}`;
    const fn =
      "{ endpointType: 'AzureFunction', properties: { resourceId: 'f', maxEventsPerBatch: 1 } }";
    expect(check(subscription(fn))).toEqual([]);
    // An endpoint type Azure does not have, with its property names checked nowhere.
    expect(
      check(subscription("{ endpointType: 'Function', properties: { resourceId: 'f' } }")),
    ).toEqual([
      expect.stringMatching(
        /^properties\.destination\.endpointType: 'Function' is not allowed: expected .*'AzureFunction'/,
      ),
    ]);
    // A property of another variant (WebHook's endpointUrl) on an AzureFunction destination.
    expect(
      check(
        subscription("{ endpointType: 'AzureFunction', properties: { endpointUrl: 'https://x' } }"),
      ),
    ).toEqual([
      expect.stringMatching(/^properties\.destination\.properties\.endpointUrl: unknown property/),
    ]);
    // A misspelt retry setting, and the read-only topic name.
    expect(
      check(
        subscription(fn, "\n    topic: 'evgt'").replace(
          "maxDeliveryAttempts",
          "maxDeliveryAttempt",
        ),
      ),
    ).toEqual([
      expect.stringMatching(
        /^properties\.retryPolicy\.maxDeliveryAttempt: unknown property .*'maxDeliveryAttempts'/,
      ),
      expect.stringMatching(/^properties(\.topic)?: .*read-only/),
    ]);
    // A system topic needs a location; its identity type is an open enum, its topicType free text.
    expect(
      check(`
resource topic 'Microsoft.EventGrid/systemTopics@2025-02-15' = {
  name: 'evgt'
  identity: { type: 'SystemAssigned' }
  properties: { source: 'kv', topicType: 'Microsoft.KeyVault.vaults', provisioningState: 'Succeeded' }
}`),
    ).toEqual([
      expect.stringMatching(/^properties(\.provisioningState)?: .*read-only/),
      ": missing required property 'location'",
    ]);
  });

  it("child resources: parent:, nested declarations, relative types, loops and conditions", () => {
    expect(
      check(`
param names array
resource st 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: 'st'
  resource blobs 'blobServices' = {
    name: 'default'
    resource box 'containers' = [for n in names: {
      name: n
      properties: { publicAccess: 'Private' }
    }]
  }
}
resource tables 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = if (true) {
  parent: st
  name: 'primary'
}
resource wrong 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = {
  parent: st
  name: 'ledger'
}`),
    ).toEqual([
      expect.stringMatching(/^properties\.publicAccess: 'Private' is not allowed/),
      expect.stringMatching(/^name: 'primary' is not allowed: expected 'default'/),
      "parent: parent st is a Microsoft.Storage/storageAccounts, and Microsoft.Storage/storageAccounts/tableServices/tables needs a Microsoft.Storage/storageAccounts/tableServices",
    ]);
  });

  it("a read-only resource type deployed instead of referenced", () => {
    const source = (existing: string) => `
resource plan 'Microsoft.Web/serverfarms@2024-04-01' existing = {
  name: 'plan'
}
resource limits 'Microsoft.Web/serverfarms/hybridConnectionPlanLimits@2024-04-01' ${existing}= {
  parent: plan
  name: 'limit'
}`;
    expect(check(source(""))).toEqual([
      ": Microsoft.Web/serverfarms/hybridConnectionPlanLimits can be read, not deployed: declare it `existing`",
    ]);
    expect(check(source("existing "))).toEqual([]);
  });

  it("an existing resource with more than a name", () => {
    expect(
      check(`
resource st 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: 'st'
  location: 'westeurope'
}`),
    ).toEqual(["location: an existing resource takes only name, scope and parent, not 'location'"]);
  });

  it("string rules of names, numbers outside a range", () => {
    expect(
      check(`
resource st 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: 'St-Cert'
  location: 'westeurope'
  kind: 'StorageV2'
  sku: { name: 'Standard_LRS' }
}
resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: 'app'
  location: 'westeurope'
  properties: { siteConfig: { preWarmedInstanceCount: 11 } }
}`),
    ).toEqual([
      "name: 'St-Cert' breaks the string rule minLength 3 maxLength 24 pattern ^[a-z0-9]+$",
      "properties.siteConfig.preWarmedInstanceCount: 11 is outside 0..10",
    ]);
  });

  it("numbers outside the type's range and values of the wrong kind", () => {
    expect(
      check(`
resource w 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: 'log-x'
  location: 'westeurope'
  properties: { retentionInDays: 'thirty', sku: { name: 'PerGB2018' }, workspaceCapping: { dailyQuotaGb: true } }
}`),
    ).toEqual([
      expect.stringMatching(/^properties\.retentionInDays: expects int, not a string$/),
      expect.stringMatching(/^properties\.workspaceCapping\.dailyQuotaGb: expects .*, not a bool$/),
    ]);
  });
});
