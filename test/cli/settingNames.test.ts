import { describe, expect, it } from "vitest";
import { checkSettingNames } from "../../cli/settingNames.js";
import { KNOWN_SETTINGS } from "../../shared/app/config/schema.js";
import { ConfigError } from "../../shared/lib/errors.js";

function check(names: readonly string[]): { warnings: string; refused: readonly string[] } {
  let warnings = "";
  const stderr = {
    isTTY: false,
    columns: undefined,
    write: (text: string) => {
      warnings += text;
    },
  };
  try {
    checkSettingNames({ env: {}, stderr }, [{ names, source: "the environment" }]);
    return { warnings, refused: [] };
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { warnings, refused: (error as ConfigError).problems.map((p) => p.name) };
  }
}

describe("checkSettingNames", () => {
  it("is silent about every known name and about names that are not ours", () => {
    expect(
      check([...KNOWN_SETTINGS, "PATH", "HOME", "FUNCTIONS_WORKER_RUNTIME", "NO_COLOR"]),
    ).toEqual({
      warnings: "",
      refused: [],
    });
  });

  it.each([
    ["CERTSCHED_HTTP_TIMEOUTS", "CERTSCHED_HTTP_TIMEOUT"],
    ["CERTSCHED_BASEURL", "CERTSCHED_BASE_URL"],
    ["CERTSHED_BASE_URL", "CERTSCHED_BASE_URL"],
    ["certsched_tenant_id", "CERTSCHED_TENANT_ID"],
    ["AzureWebJobStorage", "AzureWebJobsStorage"],
    ["CERTSCHED_RENEWAL_SCHEDUEL", "CERTSCHED_RENEWAL_SCHEDULE"],
  ])("%s warns, naming %s, and runs", (name, suggestion) => {
    const { warnings, refused } = check([name]);

    expect(refused).toEqual([]);
    expect(warnings).toBe(
      `certsched: warning: ${name} (in the environment) is not a certsched setting: did you mean ${suggestion}? It is ignored.\n`,
    );
  });

  it.each([
    ["CERTSCHED_DRYRUN"],
    ["CERTSCHED_DRY_RUNS"],
    ["CERTSCHED_DRY-RUN"],
    ["certsched_dry_run"],
    ["CERTSCHED_Dry_Run"],
    ["CERTSHED_DRY_RUN"],
    ["CERTSCHED_DRUN"],
  ])("%s refuses to run", (name) => {
    expect(check([name]).refused).toEqual([name]);
  });

  it("reports every misspelt dry-run switch at once, and still warns about the others", () => {
    const { warnings, refused } = check([
      "CERTSCHED_DRYRUN",
      "CERTSCHED_BASEURL",
      "CERTSCHED_DRY_RUNS",
    ]);

    expect(refused).toEqual(["CERTSCHED_DRYRUN", "CERTSCHED_DRY_RUNS"]);
    expect(warnings).toContain("CERTSCHED_BASEURL");
  });

  it("escapes a name with control characters in what it prints", () => {
    const { warnings } = check(["CERTSCHED_X\u001b[2J"]);

    expect(warnings).toContain("CERTSCHED_X\\u{1b}[2J");
    expect(warnings).not.toContain("\u001b");
  });
});
