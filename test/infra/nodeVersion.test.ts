import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type BicepFile, params, parseBicep, stringValue } from "./bicepTree.js";

// The Node version of the function app: 24 by default, 22 the other choice, 20 refused (its
// Azure Functions support ended 2026-04-30). Bicep's @allowed refuses 20 when Azure validates the
// deployment; azd's preprovision hook (scripts/checkNodeVersion.sh) refuses it before that, naming
// AZURE_FUNCTION_NODE_VERSION. The hook runs here as azd runs it: sh, the variable in its
// environment.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const main = parseBicep(join(repoRoot, "infra/main.bicep"), repoRoot);
const functionApp = parseBicep(join(repoRoot, "infra/modules/functionApp.bicep"), repoRoot);
const script = join(repoRoot, "scripts", "checkNodeVersion.sh");

function nodeVersion(f: BicepFile) {
  const found = params(f).find((p) => p.name === "nodeVersion");
  if (!found) throw new Error(`${f.path}: no param nodeVersion`);
  return found;
}

/** The hook with AZURE_FUNCTION_NODE_VERSION set to `value`, or unset when undefined. */
function hook(value: string | undefined) {
  const env = { ...process.env };
  delete env.AZURE_FUNCTION_NODE_VERSION;
  if (value !== undefined) env.AZURE_FUNCTION_NODE_VERSION = value;
  const run = spawnSync("sh", [script], { encoding: "utf8", env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("nodeVersion in main.bicep and modules/functionApp.bicep", () => {
  it.each([main, functionApp].map((f) => [f.path, f] as const))(
    "%s allows exactly 22 and 24, 24 by default",
    (_, f) => {
      const param = nodeVersion(f);
      expect(param.allowed).toEqual(["22", "24"]);
      expect(stringValue(param.defaultValue)).toBe("24");
    },
  );

  it.each([main, functionApp].map((f) => [f.path, f] as const))(
    "%s describes each version with its end of support, and 20's",
    (_, f) => {
      const description = nodeVersion(f).decoratorArgs.get("description")?.[0] ?? "";
      expect(description).toContain(
        "24 (default; generally available on Flex Consumption, supported to 2028-04-30)",
      );
      expect(description).toContain("22 (supported to 2027-04-30)");
      expect(description).toMatch(/Node 20.{0,40} ended 2026-04-30/);
    },
  );

  it("azd's default is the Bicep default, 24", () => {
    const parameters = JSON.parse(
      readFileSync(join(repoRoot, "infra/main.parameters.json"), "utf8"),
    ) as { parameters: Record<string, { value: unknown }> };
    expect(parameters.parameters.nodeVersion?.value).toBe(`\${AZURE_FUNCTION_NODE_VERSION=24}`);
  });
});

describe("the preprovision hook that refuses an unsupported Node version", () => {
  it("is azure.yaml's preprovision hook, and stops the provisioning when it fails", () => {
    const yaml = readFileSync(join(repoRoot, "azure.yaml"), "utf8");
    expect(yaml).toMatch(
      /\nhooks:\n(?: {2}#.*\n)* {2}preprovision:\n {4}shell: sh\n {4}run: sh scripts\/checkNodeVersion\.sh\n {4}continueOnError: false\n/,
    );
  });

  it("refuses 20, naming the setting, its end of support and the versions to use", () => {
    const ran = hook("20");

    expect(ran.status).toBe(1);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toBe(
      "certsched: AZURE_FUNCTION_NODE_VERSION=20: Node 20 is no longer supported by Azure " +
        "Functions (end of support 2026-04-30); use 24 (the default) or 22, e.g. azd env set " +
        "AZURE_FUNCTION_NODE_VERSION 24\n",
    );
  });

  it.each(["18", "26", "", "22.x", "~22", "24 ", "node24"])("refuses %j", (value) => {
    const ran = hook(value);

    expect(ran.status).toBe(1);
    expect(ran.stderr).toBe(
      `certsched: AZURE_FUNCTION_NODE_VERSION=${value}: not a Node version certsched runs on; ` +
        "use 24 (the default) or 22, e.g. azd env set AZURE_FUNCTION_NODE_VERSION 24\n",
    );
  });

  it.each(["22", "24"])("lets %s through", (value) => {
    const ran = hook(value);

    expect(ran.status).toBe(0);
    expect(ran.stderr).toBe("");
    expect(ran.stdout).toBe(
      `certsched: the function app runs on Node ${value} (AZURE_FUNCTION_NODE_VERSION)\n`,
    );
  });

  it("unset, lets through main.parameters.json's default, 24", () => {
    const ran = hook(undefined);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toBe(
      "certsched: the function app runs on Node 24 (AZURE_FUNCTION_NODE_VERSION)\n",
    );
  });

  it("lets through exactly what main.bicep allows", () => {
    const candidates = ["16", "18", "20", "21", "22", "23", "24", "25", "26"];
    const passed = candidates.filter((v) => hook(v).status === 0);
    expect(passed).toEqual(nodeVersion(main).allowed);
  });
});
