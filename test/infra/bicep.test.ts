import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LEDGER_TABLE } from "../../shared/adapters/storage/tableLedger.js";
import { SINGLE_ACCOUNT_SETTINGS } from "../../shared/app/config/accounts.js";
import { loadSettings } from "../../shared/app/config/settings.js";
import type { Env } from "../../shared/core/settings.js";
import {
  appSettings,
  type BicepFile,
  findBicepFiles,
  keys,
  modules,
  type Node,
  params,
  parseBicep,
  parseBicepSource,
  property,
  type ResourceDecl,
  resolveString,
  resources,
  stringValue,
  syntaxProblems,
} from "./bicepTree.js";

// Bicep cannot be compiled here (no bicep CLI offline): these tests parse infra/ with
// tree-sitter-bicep and check what the deployment relies on. See infra/README.md.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const files = findBicepFiles(join(repoRoot, "infra")).map((f) => parseBicep(f, repoRoot));

function file(path: string): BicepFile {
  const found = files.find((f) => f.path === path);
  if (!found) throw new Error(`${path} not found among ${files.map((f) => f.path).join(", ")}`);
  return found;
}

const main = file("infra/main.bicep");
const functionAppModule = file("infra/modules/functionApp.bicep");

/** Read by the code but deliberately not app settings: Key Vault holds them (docs/deploy.md). */
const SECRET_SETTINGS = ["CERTSCHED_API_KEY", "CERTSCHED_CLIENT_SECRET", "CERTSCHED_CT_API_KEY"];

/**
 * Set by the infrastructure before the code reads it: CERTSCHED_EVENT_RECHECK_FIRST (the first
 * recheck of a new vault certificate version's consumers) comes with the verify settings. Remove a
 * name from here once the code reads it; the last test of "app settings" says when.
 */
const AWAITING_CODE: string[] = [];

/** Host settings for the timer and telemetry, required besides the CERTSCHED_* ones. */
const HOST_SETTINGS = [
  "CERTSCHED_RENEWAL_SCHEDULE",
  "CERTSCHED_VERIFY_SCHEDULE",
  "CERTSCHED_PREFLIGHT_SCHEDULE",
  "CERTSCHED_CT_SCHEDULE",
  "CERTSCHED_ESTATE_SCHEDULE",
  "APPLICATIONINSIGHTS_CONNECTION_STRING",
];

/** Flex Consumption refuses these: runtime and package come from functionAppConfig. */
const REFUSED_BY_FLEX = [
  "FUNCTIONS_WORKER_RUNTIME",
  "FUNCTIONS_EXTENSION_VERSION",
  "WEBSITE_RUN_FROM_PACKAGE",
  "WEBSITE_NODE_DEFAULT_VERSION",
  "WEBSITE_CONTENTSHARE",
  "WEBSITE_CONTENTAZUREFILECONNECTIONSTRING",
];

/**
 * The roles the app's identity needs today, and no other (infra/modules/access.bicep says why
 * for each). Storage Queue Data Contributor: the run queues (docs/runs.md). Key Vault Certificate
 * User: each vault watched through Event Grid (infra/modules/vaultEventTopic.bicep).
 */
/** Reader, on each subscription estate discovery may see (Resource Graph answers what it may read). */
const READER_ROLE = ["Reader", "acdd72a7-3385-48ef-bd42-f606fba81ae7", "subscription"] as const;

const ROLES: [string, string, string][] = [
  // [role, definition id, type of the resource it is assigned on]
  ["Key Vault Secrets User", "4633458b-17de-408a-b874-0445c86b69e6", "Microsoft.KeyVault/vaults"],
  // Estate discovery lists a vault's certificates (metadata and policies, never a secret).
  ["Key Vault Reader", "21090545-7ca7-4776-b22c-e363652d74d2", "Microsoft.KeyVault/vaults"],
  [
    "Key Vault Certificate User",
    "db79e9a7-68ee-4b58-9aeb-b90e7c24fcba",
    "Microsoft.KeyVault/vaults",
  ],
  [
    "Storage Blob Data Owner",
    "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
    "Microsoft.Storage/storageAccounts",
  ],
  [
    "Storage Table Data Contributor",
    "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3",
    "Microsoft.Storage/storageAccounts",
  ],
  [
    "Storage Queue Data Contributor",
    "974c5e8b-45b9-4653-ba55-5f855dd0fb88",
    "Microsoft.Storage/storageAccounts",
  ],
  [
    "Monitoring Metrics Publisher",
    "3913510d-42f4-4e42-8a64-420c390055eb",
    "Microsoft.Insights/components",
  ],
];

const settingPattern = /\bCERTSCHED_[A-Z0-9_]+\b/g;

/**
 * Every CERTSCHED_* name the configuration mentions (shared/app/config/: the zod schema, the
 * loader's rules and the verify settings): the list of settings.
 */
function settingsReadBySettingsModule(): string[] {
  const dir = join(repoRoot, "shared/app/config");
  const source = readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => readFileSync(join(dir, name), "utf8"))
    .join("\n");
  return [...new Set(source.match(settingPattern) ?? [])].sort();
}

/** Every CERTSCHED_* name in functions/ and shared/ (e.g. the timer's %CERTSCHED_RENEWAL_SCHEDULE%). */
function settingsMentionedByCode(): Set<string> {
  const names = new Set<string>();
  for (const dir of ["functions", "shared"]) {
    const entries = readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
      for (const name of text.match(settingPattern) ?? []) names.add(name);
    }
  }
  return names;
}

const allAppSettings = files.flatMap((f) => appSettings(f).map((s) => ({ ...s, file: f })));
const appSettingNames = new Set(allAppSettings.map((s) => s.name));

function deployed(type: string): (ResourceDecl & { file: BicepFile })[] {
  return files.flatMap((f) =>
    resources(f)
      .filter((r) => r.type.split("@")[0] === type && !r.existing)
      .map((r) => ({ ...r, file: f })),
  );
}

function only<T>(items: T[], what: string): T {
  expect(items, what).toHaveLength(1);
  return items[0] as T;
}

function paramOf(f: BicepFile, name: string) {
  const found = params(f).find((p) => p.name === name);
  if (!found) throw new Error(`${f.path}: no param ${name}`);
  return found;
}

/** What main.bicep passes to a module parameter. */
function moduleArgument(moduleFile: BicepFile, param: string): Node | undefined {
  const call = modules(main).find(
    (m) => join(repoRoot, "infra", m.source) === moduleFile.absolutePath,
  );
  return property(call?.body, "params", param);
}

describe("infra/*.bicep parse", () => {
  it("finds main.bicep and its modules", () => {
    expect(files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        "infra/main.bicep",
        "infra/modules/access.bicep",
        "infra/modules/functionApp.bicep",
        "infra/modules/identity.bicep",
        "infra/modules/keyVault.bicep",
        "infra/modules/monitoring.bicep",
        "infra/modules/storage.bicep",
      ]),
    );
  });

  it.each(files.map((f) => [f.path, f] as const))("%s has no syntax error", (_, f) => {
    expect(syntaxProblems(f)).toEqual([]);
  });

  it.each(files.map((f) => [f.path, f] as const))("%s describes every parameter", (_, f) => {
    const undescribed = params(f)
      .filter((p) => !p.decorators.includes("description"))
      .map((p) => p.name);
    expect(undescribed).toEqual([]);
  });

  it.each(files.map((f) => [f.path, f] as const))(
    "%s passes modules only parameters they declare, and all they require",
    (_, f) => {
      for (const m of modules(f)) {
        const target = join(dirname(f.absolutePath), m.source);
        expect(existsSync(target), `${f.path}: module ${m.symbol} -> ${m.source}`).toBe(true);
        const declared = params(parseBicep(target, repoRoot));
        const passed = keys(property(m.body, "params"));
        const unknown = passed.filter((name) => !declared.some((p) => p.name === name));
        const missing = declared
          .filter((p) => p.defaultValue === undefined && !passed.includes(p.name))
          .map((p) => p.name);
        expect({ module: m.symbol, unknown, missing }).toEqual({
          module: m.symbol,
          unknown: [],
          missing: [],
        });
      }
    },
  );
});

describe("app settings", () => {
  const readByCode = settingsReadBySettingsModule();

  it("derives the settings from shared/app/config/", () => {
    // Guards the derivation itself: an empty list would make the next test pass vacuously.
    expect(readByCode.length).toBeGreaterThanOrEqual(20);
    expect(readByCode).toEqual(expect.arrayContaining(["CERTSCHED_BASE_URL", ...SECRET_SETTINGS]));
  });

  it("sets every setting the code reads, except the secrets Key Vault holds", () => {
    const expected = [
      ...readByCode.filter((name) => !SECRET_SETTINGS.includes(name)),
      ...HOST_SETTINGS,
    ];
    const missing = expected.filter((name) => !appSettingNames.has(name));
    expect(missing).toEqual([]);
  });

  it("never sets a secret as a plain app setting", () => {
    expect(SECRET_SETTINGS.filter((name) => appSettingNames.has(name))).toEqual([]);
  });

  it("sets only CERTSCHED_* settings the code reads (no typos)", () => {
    const mentioned = settingsMentionedByCode();
    const unread = [...appSettingNames].filter(
      (name) =>
        name.startsWith("CERTSCHED_") && !mentioned.has(name) && !AWAITING_CODE.includes(name),
    );
    expect(unread).toEqual([]);
  });

  it("sets each setting once", () => {
    const names = allAppSettings.map((s) => s.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it("reaches AzureWebJobsStorage through the managed identity, not a connection string", () => {
    expect(appSettingNames.has("AzureWebJobsStorage")).toBe(false);
    for (const name of [
      "AzureWebJobsStorage__accountName",
      "AzureWebJobsStorage__credential",
      "AzureWebJobsStorage__clientId",
      "AZURE_CLIENT_ID",
      "APPLICATIONINSIGHTS_AUTHENTICATION_STRING",
    ]) {
      expect(appSettingNames, name).toContain(name);
    }
    const credential = allAppSettings.find((s) => s.name === "AzureWebJobsStorage__credential");
    expect(stringValue(credential?.value)).toBe("managedidentity");
  });

  it("sets nothing Flex Consumption refuses", () => {
    expect(REFUSED_BY_FLEX.filter((name) => appSettingNames.has(name))).toEqual([]);
  });

  it("keeps the webhook URL, which carries its signature, in a @secure() parameter", () => {
    for (const f of [main, functionAppModule]) {
      expect(paramOf(f, "webhookUrl").decorators, f.path).toContain("secure");
    }
    const webhook = only(
      allAppSettings.filter((s) => s.name === "CERTSCHED_WEBHOOK_URL"),
      "CERTSCHED_WEBHOOK_URL",
    );
    expect(webhook.value?.text).toBe("webhookUrl");
  });

  it("deploys the code's defaults when parameters keep theirs", () => {
    const required: Env = {
      CERTSCHED_BASE_URL: "https://service.example",
      CERTSCHED_TENANT_ID: "tenant",
      CERTSCHED_CLIENT_ID: "client",
      CERTSCHED_KEY_VAULT_URL: "https://vault.example",
    };
    const fromDefaults: Record<string, string> = {};
    for (const s of appSettings(main)) {
      const value = resolveString(main, s.value);
      if (value !== undefined) fromDefaults[s.name] = value;
    }
    expect(Object.keys(fromDefaults).length).toBeGreaterThanOrEqual(15);
    // verify(), preflight() and ari() parse their settings on first call: compare what they
    // return, not the functions.
    const parsed = (env: Readonly<Record<string, string | undefined>>) => {
      const settings = loadSettings(env);
      return {
        ...settings,
        verify: settings.verify(),
        preflight: settings.preflight(),
        ari: settings.ari(),
        transparency: settings.transparency(),
        estate: settings.estate(),
      };
    };
    expect(parsed({ ...fromDefaults, ...required })).toEqual(parsed(required));
    expect(fromDefaults.CERTSCHED_RENEWAL_SCHEDULE).toBe("0 0 3 * * *");
  });

  it("lists as awaiting code only settings the code does not read yet", () => {
    // When this fails, the code reads the setting now: remove it from AWAITING_CODE.
    const mentioned = settingsMentionedByCode();
    expect(AWAITING_CODE.filter((name) => mentioned.has(name))).toEqual([]);
    expect(AWAITING_CODE.filter((name) => !appSettingNames.has(name))).toEqual([]);
  });
});

describe("identity and roles", () => {
  const assignments = deployed("Microsoft.Authorization/roleAssignments");

  it("names every role assignment with guid(...)", () => {
    expect(assignments.length).toBeGreaterThanOrEqual(ROLES.length);
    for (const a of assignments) {
      const name = property(a.body, "name");
      expect(name?.type, `${a.file.path} ${a.symbol}`).toBe("call_expression");
      expect(name?.childForFieldName("function")?.text, `${a.file.path} ${a.symbol}`).toBe("guid");
    }
  });

  it.each(ROLES)("assigns %s (%s) on the %s", (_, id, scopeType) => {
    const matching = assignments.filter((a) => {
      const definition = property(a.body, "properties", "roleDefinitionId");
      const candidates = definition
        ? [
            definition,
            ...definition.descendantsOfType(["string", "identifier", "member_expression"]),
          ]
        : [];
      return candidates.some((node) => resolveString(a.file, node) === id);
    });
    expect(matching.length, id).toBeGreaterThanOrEqual(1);
    for (const a of matching) {
      const scope = property(a.body, "scope")?.text;
      const target = resources(a.file).find((r) => r.symbol === scope);
      expect(target?.type.split("@")[0], `${a.file.path} ${a.symbol} scope`).toBe(scopeType);
      // The app's identity, not the deployer: principalId comes from the identity module.
      expect(property(a.body, "properties", "principalId")?.text).toBe("principalId");
      expect(moduleArgument(a.file, "principalId")?.text).toBe("identity.outputs.principalId");
    }
  });

  it("assigns Reader at the scope of each subscription estate discovery names, nowhere else", () => {
    const estateModule = file("infra/modules/estateReader.bicep");
    expect(estateModule.root.text).toMatch(/^targetScope = 'subscription'$/m);
    const [reader] = resources(estateModule).filter((r) =>
      r.type.startsWith("Microsoft.Authorization/roleAssignments@"),
    );
    expect(property(reader?.body, "scope")).toBeUndefined();
    expect(
      resolveString(
        estateModule,
        property(reader?.body, "properties", "roleDefinitionId")?.descendantsOfType(
          "member_expression",
        )[0],
      ),
    ).toBe(READER_ROLE[1]);
    const call = modules(main).find((m) => m.source === "modules/estateReader.bicep");
    expect(property(call?.body, "scope")?.text).toBe("subscription(s)");
    expect(property(call?.body, "params", "principalId")?.text).toBe(
      "identity.outputs.principalId",
    );
  });

  it("gives the app's identity no role beyond those, none of them without a reason", () => {
    const toApp = assignments.filter(
      (a) => property(a.body, "properties", "principalId")?.text === "principalId",
    );
    const assigned = toApp.map((a) => {
      const definition = property(a.body, "properties", "roleDefinitionId");
      const ids = (definition?.descendantsOfType(["member_expression"]) ?? [])
        .map((node) => resolveString(a.file, node))
        .filter((id) => id !== undefined);
      return ids[0] ?? `unresolved: ${definition?.text}`;
    });
    expect(assigned.sort()).toEqual([...ROLES, READER_ROLE].map(([, id]) => id).sort());
    // Each assignment carries a comment saying why the app needs it.
    for (const a of toApp) {
      let declaration = a.body?.parent;
      while (declaration && declaration.type !== "resource_declaration") {
        declaration = declaration.parent;
      }
      const above = declaration?.previousNamedSibling;
      expect(above?.type, `${a.file.path} ${a.symbol}: comment above`).toBe("comment");
    }
  });

  it("gives the app its user-assigned identity, whose client id DefaultAzureCredential uses", () => {
    const site = only(deployed("Microsoft.Web/sites"), "function app");
    expect(stringValue(property(site.body, "identity", "type"))).toBe("UserAssigned");
    const clientId = allAppSettings.find((s) => s.name === "AZURE_CLIENT_ID");
    expect(clientId?.value?.text).toBe("identityClientId");
    expect(moduleArgument(functionAppModule, "identityClientId")?.text).toBe(
      "identity.outputs.clientId",
    );
  });
});

describe("hosting", () => {
  it("runs on a Flex Consumption (FC1) plan", () => {
    const plan = only(deployed("Microsoft.Web/serverfarms"), "plan");
    expect(stringValue(property(plan.body, "sku", "name"))).toBe("FC1");
    expect(stringValue(property(plan.body, "sku", "tier"))).toBe("FlexConsumption");
    expect(property(plan.body, "properties", "reserved")?.text).toBe("true");
    const site = only(deployed("Microsoft.Web/sites"), "function app");
    expect(property(site.body, "properties", "serverFarmId")?.text).toBe(`${plan.symbol}.id`);
  });

  // Which versions, and the refusal of 20: nodeVersion.test.ts.
  it("runs the Node worker at the version main.bicep is given", () => {
    const site = only(deployed("Microsoft.Web/sites"), "function app");
    expect(stringValue(property(site.body, "kind"))).toBe("functionapp,linux");
    const runtime = property(site.body, "properties", "functionAppConfig", "runtime");
    expect(stringValue(property(runtime, "name"))).toBe("node");
    expect(property(runtime, "version")?.text).toBe("nodeVersion");
    expect(moduleArgument(site.file, "nodeVersion")?.text).toBe("nodeVersion");
  });

  it("scales out within what FC1 accepts: 40 to 1000 instances, 100 by default", () => {
    const site = only(deployed("Microsoft.Web/sites"), "function app");
    const scale = property(site.body, "properties", "functionAppConfig", "scaleAndConcurrency");
    expect(property(scale, "maximumInstanceCount")?.text).toBe("maximumInstanceCount");
    for (const f of [site.file, main]) {
      const param = paramOf(f, "maximumInstanceCount");
      expect(param.decoratorArgs.get("minValue"), f.path).toEqual(["40"]);
      expect(param.decoratorArgs.get("maxValue"), f.path).toEqual(["1000"]);
      expect(param.defaultValue?.text, f.path).toBe("100");
    }
    expect(moduleArgument(site.file, "maximumInstanceCount")?.text).toBe("maximumInstanceCount");
  });

  it("takes its deployment package from a blob container through the identity", () => {
    const site = only(deployed("Microsoft.Web/sites"), "function app");
    const storage = property(site.body, "properties", "functionAppConfig", "deployment", "storage");
    expect(stringValue(property(storage, "type"))).toBe("blobContainer");
    expect(stringValue(property(storage, "authentication", "type"))).toBe("UserAssignedIdentity");
  });

  it("keeps the renewal ledger in the table the code uses", () => {
    const table = only(
      deployed("Microsoft.Storage/storageAccounts/tableServices/tables"),
      "ledger table",
    );
    expect(property(table.body, "name")?.text).toBe("ledgerTableName");
    const storageModule = file("infra/modules/storage.bicep");
    expect(resolveString(main, moduleArgument(storageModule, "ledgerTableName"))).toBe(
      LEDGER_TABLE,
    );
  });

  it("turns shared keys off on the storage account", () => {
    const account = only(deployed("Microsoft.Storage/storageAccounts"), "storage account");
    expect(property(account.body, "properties", "allowSharedKeyAccess")?.text).toBe("false");
  });
});

describe("Key Vault", () => {
  const vault = only(deployed("Microsoft.KeyVault/vaults"), "vault");
  const secrets = deployed("Microsoft.KeyVault/vaults/secrets");

  it("uses RBAC authorization and soft delete", () => {
    expect(property(vault.body, "properties", "enableRbacAuthorization")?.text).toBe("true");
    expect(property(vault.body, "properties", "enableSoftDelete")?.text).toBe("true");
  });

  it("creates each secret only when its value is given", () => {
    expect(secrets.map((s) => property(s.body, "name")?.text).sort()).toEqual([
      "apiKeySecretName",
      "clientSecretSecretName",
    ]);
    for (const s of secrets) {
      const value = property(s.body, "properties", "value")?.text;
      expect(s.condition, s.symbol).toBe(`!empty(${value})`);
    }
    for (const f of [main, vault.file]) {
      for (const name of ["apiKey", "clientSecret"]) {
        const p = paramOf(f, name);
        expect(p.decorators, `${f.path} ${name}`).toContain("secure");
        expect(stringValue(p.defaultValue), `${f.path} ${name}`).toBe("");
      }
    }
  });

  it("names the secrets as the code does by default", () => {
    const defaults = loadSettings({
      CERTSCHED_BASE_URL: "https://service.example",
      CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
    });
    expect(stringValue(paramOf(main, "apiKeySecretName").defaultValue)).toBe(
      defaults.apiKeySecretName,
    );
    expect(stringValue(paramOf(main, "clientSecretSecretName").defaultValue)).toBe(
      defaults.clientSecretSecretName,
    );
  });
});

describe("azd", () => {
  const parametersJson = JSON.parse(
    readFileSync(join(repoRoot, "infra/main.parameters.json"), "utf8"),
  ) as { parameters: Record<string, { value: unknown }> };
  const mapped = parametersJson.parameters;
  const azureYaml = readFileSync(join(repoRoot, "azure.yaml"), "utf8");

  it("maps only parameters main.bicep declares, and every one it requires", () => {
    const declared = params(main);
    expect(Object.keys(mapped).filter((name) => !declared.some((p) => p.name === name))).toEqual(
      [],
    );
    const required = declared.filter((p) => p.defaultValue === undefined).map((p) => p.name);
    expect(required.filter((name) => !(name in mapped))).toEqual([]);
    expect(mapped.environmentName?.value).toBe(`\${AZURE_ENV_NAME}`);
    expect(mapped.location?.value).toBe(`\${AZURE_LOCATION}`);
  });

  it("gives substitution defaults equal to the Bicep defaults", () => {
    for (const [name, { value }] of Object.entries(mapped)) {
      const match = /^\$\{[A-Z0-9_]+=(.*)\}$/.exec(String(value));
      if (!match) continue;
      const bicepDefault = paramOf(main, name).defaultValue;
      expect(stringValue(bicepDefault) ?? bicepDefault?.text, name).toBe(match[1]);
    }
  });

  it("reads each CERTSCHED_* setting from the azd variable of the same name", () => {
    for (const s of appSettings(main)) {
      if (s.value?.type !== "identifier" || !(s.value.text in mapped)) continue;
      expect(String(mapped[s.value.text]?.value), s.name).toMatch(
        new RegExp(`^\\$\\{${s.name}(=.*)?\\}$`),
      );
    }
  });

  it("never takes a secret value from the azd environment file", () => {
    expect(Object.keys(mapped).filter((name) => ["apiKey", "clientSecret"].includes(name))).toEqual(
      [],
    );
  });

  it("deploys the azure.yaml service to the app tagged with its name", () => {
    const service = /^services:\s*\n\s+([a-z0-9-]+):/m.exec(azureYaml)?.[1];
    expect(service).toBe("certsched");
    expect(azureYaml).toMatch(/^\s+host:\s*function\s*$/m);
    expect(azureYaml).toMatch(/^\s+run:\s*npm ci && npm run build\s*$/m);
    const site = only(deployed("Microsoft.Web/sites"), "function app");
    const tags = property(site.body, "tags");
    const tagObject = tags
      ?.descendantsOfType("object")
      .find((o) => keys(o).includes("azd-service-name"));
    const tagValue = property(tagObject, "azd-service-name");
    expect(tagValue?.text).toBe("serviceName");
    expect(resolveString(main, moduleArgument(site.file, "serviceName"))).toBe(service);
  });
});

describe("the checks themselves", () => {
  // Each check above must be able to fail: run it on small broken inputs.
  const broken = parseBicepSource(
    [
      "@description('described')",
      "param good string",
      "param bare string = 'x'",
      "var settings = [",
      "  { name: 'CERTSCHED_ONE', value: good }",
      "]",
      "resource r 'Microsoft.Web/sites@2024-04-01' = {",
      "  name: 'x'",
      "  properties: {",
      "    kind: 'a'",
      "",
    ].join("\n"),
    "broken.bicep",
  );

  it("reports a missing brace", () => {
    expect(syntaxProblems(broken).length).toBeGreaterThan(0);
  });

  it("reports a parameter without @description", () => {
    const undescribed = params(broken).filter((p) => !p.decorators.includes("description"));
    expect(undescribed.map((p) => p.name)).toEqual(["bare"]);
  });

  it("finds app settings by their { name, value } shape", () => {
    expect(appSettings(broken).map((s) => s.name)).toEqual(["CERTSCHED_ONE"]);
  });
});

describe("accounts (docs/accounts.md)", () => {
  const main = readFileSync(join(repoRoot, "infra/main.bicep"), "utf8");
  const block = (name: string) => {
    const match = new RegExp(`var ${name} = \\[([\\s\\S]*?)\\n\\]`).exec(main);
    return [...(match?.[1] ?? "").matchAll(/name: '([A-Za-z_]+)'/g)].map((m) => m[1]);
  };

  it("sets the single-account service settings only when no accounts are declared", () => {
    // The code refuses each of them beside declared accounts; the secrets come from Key Vault.
    expect(block("singleAccountSettings").sort()).toEqual(
      SINGLE_ACCOUNT_SETTINGS.filter((n) => !SECRET_SETTINGS.includes(n)).sort(),
    );
    expect(main).toMatch(/var accountsDeclared = !empty\(accounts\) \|\| !empty\(accountsFile\)/);
    expect(main).toMatch(
      /var certschedSettings = concat\(accountsDeclared \? \[\] : singleAccountSettings, commonSettings\)/,
    );
    for (const name of SINGLE_ACCOUNT_SETTINGS) expect(block("commonSettings")).not.toContain(name);
    expect(block("commonSettings")).toEqual(
      expect.arrayContaining(["CERTSCHED_ACCOUNTS", "CERTSCHED_ACCOUNTS_FILE"]),
    );
  });
});
