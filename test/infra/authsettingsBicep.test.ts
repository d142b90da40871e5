import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type BicepFile,
  findBicepFiles,
  type Node,
  params,
  parseBicep,
  property,
  resources,
  stringValue,
} from "./bicepTree.js";

// App Service Authentication as infra/modules/functionApp.bicep declares it (the Azure-types
// check in test/infra validates its shape); here, what the design in docs/deploy.md section 9
// relies on.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const files = findBicepFiles(join(repoRoot, "infra")).map((f) => parseBicep(f, repoRoot));

function bicep(path: string): BicepFile {
  const found = files.find((f) => f.path === path);
  if (!found) throw new Error(`${path} not found`);
  return found;
}
const main = bicep("infra/main.bicep");
const functionAppModule = bicep("infra/modules/functionApp.bicep");

function text(node: Node | undefined): string | undefined {
  return node?.text;
}

describe("App Service Authentication (Entra ID)", () => {
  const auth = resources(functionAppModule).find(
    (r) => r.type === "Microsoft.Web/sites/config@2024-04-01",
  );
  const props = property(auth?.body, "properties");

  it("is on only when an app registration's client id is given", () => {
    expect(stringValue(property(auth?.body, "name"))).toBe("authsettingsV2");
    expect(auth?.condition).toBe("!empty(entraClientId)");
    expect(params(main).find((p) => p.name === "entraClientId")?.defaultValue?.text).toBe("''");
    expect(text(property(props, "platform", "enabled"))).toBe("true");
  });

  it("requires a token everywhere but the key-only paths, answering 401 (an API: no redirect)", () => {
    expect(text(property(props, "globalValidation", "requireAuthentication"))).toBe("true");
    expect(stringValue(property(props, "globalValidation", "unauthenticatedClientAction"))).toBe(
      "Return401",
    );
    expect(text(property(props, "globalValidation", "excludedPaths"))).toBe("entraKeyOnlyPaths");
    expect(
      params(functionAppModule).find((p) => p.name === "entraKeyOnlyPaths")?.defaultValue?.text,
    ).toBe("[]");
  });

  it("validates the audience: the app registration's client id and its api:// URI", () => {
    const aad = property(props, "identityProviders", "azureActiveDirectory");
    expect(text(property(aad, "enabled"))).toBe("true");
    expect(text(property(aad, "registration", "clientId"))).toBe("entraClientId");
    expect(
      property(aad, "validation", "allowedAudiences")?.namedChildren.map((n) => n.text),
    ).toEqual(["entraClientId", `'api://\${entraClientId}'`]);
    expect(property(aad, "registration", "openIdIssuer")?.text).toMatch(
      /\$\{entraTenant\}\/v2\.0'$/,
    );
  });

  it("keeps a function key required by every HTTP function, so a key-only path is never open", () => {
    const dir = join(repoRoot, "functions");
    let registrations = 0;
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
      const source = readFileSync(join(dir, f), "utf8");
      for (const registration of source.match(/app\.http\([\s\S]*?\}\);/g) ?? []) {
        registrations += 1;
        // The library's default is "anonymous": the level must be written out.
        expect(registration, f).toMatch(/authLevel: "function"/);
      }
    }
    expect(registrations).toBeGreaterThanOrEqual(5);
  });
});
