import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// azd's postdeploy hook (scripts/subscribeVaultEvents.sh, azure.yaml): run with a stand-in `azd`
// on PATH that answers `env get-value` from a file and records every other call.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(repoRoot, "scripts", "subscribeVaultEvents.sh");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The hook run against an azd environment holding `values`: its exit code, output, azd calls. */
function hook(values: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "certsched-azd-"));
  dirs.push(dir);
  writeFileSync(join(dir, "env.json"), JSON.stringify(values));
  writeFileSync(
    join(dir, "azd"),
    `#!/bin/sh
if [ "$1 $2" = "env get-value" ]; then
  exec node -e 'const v = require(process.argv[1])[process.argv[2]]; if (v === undefined) { console.error("not found"); process.exit(1); } console.log(v)' "${dir}/env.json" "$3"
fi
echo "$*" >> "${dir}/calls"
`,
  );
  chmodSync(join(dir, "azd"), 0o755);
  const run = spawnSync("sh", [script], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
  });
  let calls: string[] = [];
  try {
    calls = readFileSync(join(dir, "calls"), "utf8").trim().split("\n");
  } catch {
    calls = [];
  }
  return { status: run.status, stdout: run.stdout, calls };
}

describe("the postdeploy hook that subscribes the watched vaults", () => {
  it("is azure.yaml's postdeploy hook, and stops the deployment when it fails", () => {
    const yaml = readFileSync(join(repoRoot, "azure.yaml"), "utf8");
    expect(yaml).toMatch(
      /\n {2}postdeploy:\n {4}shell: sh\n {4}run: sh scripts\/subscribeVaultEvents\.sh\n {4}continueOnError: false\n/,
    );
  });

  it("with vaults watched and the subscriptions held back, marks the code deployed and provisions again", () => {
    const ran = hook({
      AZURE_EVENT_VAULTS: '[{"name":"kv-contoso","resourceGroup":"rg-certs"}]',
      AZURE_KEY_VAULT_EVENTS_DEPLOYED: "false",
    });

    expect(ran.status).toBe(0);
    expect(ran.calls).toEqual([
      "env set AZURE_KEY_VAULT_EVENTS_DEPLOYED true",
      "provision --no-prompt",
    ]);
  });

  it("the same when the environment never had AZURE_KEY_VAULT_EVENTS_DEPLOYED", () => {
    const ran = hook({ AZURE_EVENT_VAULTS: '[{"name":"kv-contoso","resourceGroup":"rg-certs"}]' });

    expect(ran.calls).toEqual([
      "env set AZURE_KEY_VAULT_EVENTS_DEPLOYED true",
      "provision --no-prompt",
    ]);
  });

  it.each([
    ["no vault watched", { AZURE_EVENT_VAULTS: "[]" }],
    ["no vault watched, spaced", { AZURE_EVENT_VAULTS: " [ ] " }],
    ["the variable unset", {}],
    [
      "the subscriptions already in place",
      {
        AZURE_EVENT_VAULTS: '[{"name":"kv-contoso","resourceGroup":"rg-certs"}]',
        AZURE_KEY_VAULT_EVENTS_DEPLOYED: "true",
      },
    ],
  ])("does nothing more with %s", (_, values) => {
    const ran = hook(values);

    expect(ran.status).toBe(0);
    expect(ran.calls).toEqual([]);
    expect(ran.stdout).toMatch(/^certsched: /);
  });
});
