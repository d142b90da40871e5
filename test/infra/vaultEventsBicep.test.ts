import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RECHECK_QUEUE } from "../../shared/core/ports/vaultEvents.js";
import { VAULT_EVENT_TYPES } from "../../shared/core/vaultEvents/vaultEvent.js";
import {
  type BicepFile,
  findBicepFiles,
  modules,
  type Node,
  params,
  parseBicep,
  property,
  resolveString,
  resources,
  stringValue,
} from "./bicepTree.js";

// The Key Vault events' infrastructure (infra/README.md "Key Vault events"): per watched vault a
// system topic, its subscription to the keyVaultEvents function, dead-lettering and the roles.
// The Azure-types check validates the shapes; here, what the function and the docs rely on.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const files = findBicepFiles(join(repoRoot, "infra")).map((f) => parseBicep(f, repoRoot));

function bicep(path: string): BicepFile {
  const found = files.find((f) => f.path === path);
  if (!found) throw new Error(`${path} not found`);
  return found;
}
const main = bicep("infra/main.bicep");
const storage = bicep("infra/modules/storage.bicep");
const topicModule = bicep("infra/modules/vaultEventTopic.bicep");
const deadLetterModule = bicep("infra/modules/vaultEventDeadLetter.bicep");
const subscriptionModule = bicep("infra/modules/vaultEventSubscription.bicep");

function resource(file: BicepFile, type: string) {
  const found = resources(file).filter((r) => r.type === type && !r.existing);
  expect(found, `${file.path}: ${type}`).toHaveLength(1);
  return found[0];
}

/** The call of a module in main.bicep, and the syntax around its body (loop, condition). */
function call(module: BicepFile) {
  const found = modules(main).find((m) => `infra/${m.source}` === module.path);
  expect(found, module.path).toBeDefined();
  const around: string[] = [];
  for (let n: Node | null | undefined = found?.body?.parent; n; n = n.parent) {
    if (n.type === "module_declaration") break;
    around.push(n.type);
  }
  return {
    body: found?.body,
    around,
    arg: (name: string) => property(found?.body, "params", name),
  };
}

function strings(node: Node | undefined): string[] {
  return (node?.namedChildren ?? []).map((c) => stringValue(c) ?? `not a literal: ${c.text}`);
}

describe("which vaults", () => {
  it("watches none unless eventVaults names them, and creates every event resource per vault", () => {
    const p = params(main).find((x) => x.name === "eventVaults");
    expect(p?.defaultValue?.text).toBe("[]");
    for (const m of [topicModule, deadLetterModule, subscriptionModule]) {
      const c = call(m);
      expect(c.around, m.path).toContain("for_statement");
      expect(c.body?.parent?.parent?.text ?? "", m.path).toMatch(/\bin eventVaults:/);
    }
    // The topic and the subscription live with the vault; the dead-letter role with the storage.
    expect(property(call(topicModule).body, "scope")?.text).toBe("resourceGroup(v.resourceGroup)");
    expect(property(call(subscriptionModule).body, "scope")?.text).toBe(
      "resourceGroup(v.resourceGroup)",
    );
    expect(property(call(deadLetterModule).body, "scope")).toBeUndefined();
    const mapped = JSON.parse(readFileSync(join(repoRoot, "infra/main.parameters.json"), "utf8"));
    expect(mapped.parameters.eventVaults.value).toBe(`\${AZURE_EVENT_VAULTS=[]}`);
  });

  it("subscribes only once the function exists, which Event Grid requires", () => {
    const c = call(subscriptionModule);
    expect(c.around).toContain("if_statement");
    expect(c.body?.parent?.namedChildren[0]?.text).toBe("(keyVaultEventsDeployed)");
  });
});

describe("the system topic", () => {
  const topic = resource(topicModule, "Microsoft.EventGrid/systemTopics@2025-02-15");

  it("is Key Vault's, in the vault's region, with its own identity", () => {
    expect(stringValue(property(topic?.body, "properties", "topicType"))).toBe(
      "Microsoft.KeyVault.vaults",
    );
    expect(property(topic?.body, "properties", "source")?.text).toBe("vault.id");
    expect(property(topic?.body, "location")?.text).toBe("vault.location");
    expect(stringValue(property(topic?.body, "identity", "type"))).toBe("SystemAssigned");
  });
});

describe("the event subscription", () => {
  const sub = resource(
    subscriptionModule,
    "Microsoft.EventGrid/systemTopics/eventSubscriptions@2025-02-15",
  );
  const props = property(sub?.body, "properties");

  it("delivers to the Event Grid trigger the app registers, by its resource id", () => {
    const destination = property(props, "destination");
    expect(stringValue(property(destination, "endpointType"))).toBe("AzureFunction");
    expect(property(destination, "properties", "resourceId")?.text).toBe(
      `'\${functionAppId}/functions/\${functionName}'`,
    );
    const name = resolveString(main, call(subscriptionModule).arg("functionName"));
    const registered = readFileSync(join(repoRoot, "functions/keyVaultEvents.ts"), "utf8");
    expect(registered).toContain(`app.eventGrid("${name}",`);
    expect(call(subscriptionModule).arg("functionAppId")?.text).toBe("functionApp.outputs.id");
  });

  it("is named per deployment, so two deployments watching one vault keep their own", () => {
    expect(property(sub?.body, "name")?.text).toBe("subscriptionName");
    expect(call(subscriptionModule).arg("subscriptionName")?.text).toBe(
      `'certsched-\${resourceToken}'`,
    );
  });

  it("takes the three certificate event types the code reads, in a stated schema", () => {
    expect(strings(property(props, "filter", "includedEventTypes")).sort()).toEqual(
      Object.values(VAULT_EVENT_TYPES).sort(),
    );
    expect(stringValue(property(props, "eventDeliverySchema"))).toBe("EventGridSchema");
  });

  it("states its retry policy: 30 attempts within 24 hours by default, within Azure's bounds", () => {
    const retry = property(props, "retryPolicy");
    expect(property(retry, "maxDeliveryAttempts")?.text).toBe("maxDeliveryAttempts");
    expect(property(retry, "eventTimeToLiveInMinutes")?.text).toBe("eventTimeToLiveInMinutes");
    for (const [file, attempts, ttl] of [
      [subscriptionModule, "maxDeliveryAttempts", "eventTimeToLiveInMinutes"],
      [main, "eventMaxDeliveryAttempts", "eventTimeToLiveInMinutes"],
    ] as const) {
      const a = params(file).find((p) => p.name === attempts);
      const t = params(file).find((p) => p.name === ttl);
      expect([a?.defaultValue?.text, a?.decoratorArgs.get("maxValue")], file.path).toEqual([
        "30",
        ["30"],
      ]);
      expect([t?.defaultValue?.text, t?.decoratorArgs.get("maxValue")], file.path).toEqual([
        "1440",
        ["1440"],
      ]);
    }
  });

  it("dead-letters with the topic's identity to the container storage.bicep creates", () => {
    const dead = property(props, "deadLetterWithResourceIdentity");
    expect(stringValue(property(dead, "identity", "type"))).toBe("SystemAssigned");
    const destination = property(dead, "deadLetterDestination");
    expect(stringValue(property(destination, "endpointType"))).toBe("StorageBlob");
    expect(property(destination, "properties", "blobContainerName")?.text).toBe(
      "deadLetterContainerName",
    );
    const containers = resources(storage).filter(
      (r) => r.type === "Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01",
    );
    expect(containers.map((c) => property(c.body, "name")?.text)).toContain(
      "deadLetterContainerName",
    );
    const storageCall = modules(main).find((m) => m.source === "modules/storage.bicep");
    expect(
      resolveString(main, property(storageCall?.body, "params", "deadLetterContainerName")),
    ).toBe("eventgrid-deadletter");
  });
});

describe("roles", () => {
  it("lets the topic's identity write dead letters to that container, and nothing wider", () => {
    const role = resource(deadLetterModule, "Microsoft.Authorization/roleAssignments@2022-04-01");
    const container = resources(deadLetterModule).find(
      (r) => r.symbol === property(role?.body, "scope")?.text,
    );
    expect(container?.type).toBe(
      "Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01",
    );
    const definition = property(role?.body, "properties", "roleDefinitionId");
    const id = resolveString(
      deadLetterModule,
      definition?.descendantsOfType("member_expression")[0],
    );
    expect(id).toBe("ba92f5b4-2d11-453d-a403-e96b0029c9fe"); // Storage Blob Data Contributor
    expect(call(deadLetterModule).arg("topicPrincipalId")?.text).toBe(
      "vaultEventTopics[i].outputs.topicPrincipalId",
    );
  });

  it("lets the app read certificates in each watched vault when it reads with its own identity", () => {
    const role = resource(topicModule, "Microsoft.Authorization/roleAssignments@2022-04-01");
    expect(role?.condition).toBe("grantCertificateRead");
    expect(property(role?.body, "scope")?.text).toBe("vault");
    expect(call(topicModule).arg("principalId")?.text).toBe("identity.outputs.principalId");
    expect(main.root.text).toMatch(
      /var grantCertificateRead = cloudCredential == 'managed-identity' \|\| accountsDeclared/,
    );
  });
});

describe("around the subscription", () => {
  it("creates the recheck queue the queue trigger listens on", () => {
    const storageCall = modules(main).find((m) => m.source === "modules/storage.bicep");
    expect(resolveString(main, property(storageCall?.body, "params", "recheckQueueName"))).toBe(
      RECHECK_QUEUE,
    );
    const queues = resources(storage).filter(
      (r) => r.type === "Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01",
    );
    expect(queues.map((q) => property(q.body, "name")?.text)).toContain("recheckQueueName");
  });

  it("keeps Event Grid's path on its key when Entra ID guards the app", () => {
    const app = modules(main).find((m) => m.source === "modules/functionApp.bicep");
    expect(property(app?.body, "params", "entraKeyOnlyPaths")?.text).toMatch(
      /empty\(eventVaults\) \? \[\] : \['\/runtime\/webhooks\/eventgrid'\]/,
    );
  });
});
