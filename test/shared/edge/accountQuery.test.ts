import { describe, expect, it } from "vitest";
import { accountParam, accountsOf, oneAccount } from "../../../shared/edge/accountQuery.js";
import { ValidationError } from "../../../shared/lib/errors.js";

/** The problems `work` is refused with (a ValidationError of the query), or undefined. */
function refusal(work: () => unknown) {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  return undefined;
}

const TWO = ["contoso", "fabrikam-eu"];

describe("oneAccount", () => {
  it("takes a known name, and the only account when none is named", () => {
    expect(oneAccount(TWO, "fabrikam-eu")).toBe("fabrikam-eu");
    expect(oneAccount(["default"], undefined)).toBe("default");
    expect(oneAccount(["contoso"], "contoso")).toBe("contoso");
  });

  it("refuses a missing name when more than one account is declared, listing them", () => {
    expect(refusal(() => oneAccount(TWO, undefined))).toEqual([
      {
        name: "account",
        message:
          "is required when more than one account is declared: the accounts are 'contoso', 'fabrikam-eu'",
      },
    ]);
  });

  it("refuses an unknown name (case counts, the empty name too), listing the known ones", () => {
    for (const name of ["northwind", "Contoso", ""]) {
      expect(refusal(() => oneAccount(TWO, name))).toEqual([
        {
          name: "account",
          message: `'${name}' is unknown: the accounts are 'contoso', 'fabrikam-eu'`,
        },
      ]);
    }
  });

  it("quotes an unknown name cut and with its control characters made visible", () => {
    const [problem] = refusal(() => oneAccount(TWO, `evil\n${"x".repeat(100)}`)) ?? [];
    expect(problem?.message).not.toContain("\n");
    expect(problem?.message).toContain("…' is unknown");
    expect(problem?.message.length).toBeLessThan(120);
  });
});

describe("accountsOf", () => {
  it("covers every account without a name, the named one with it", () => {
    expect(accountsOf(TWO, undefined)).toEqual(TWO);
    expect(accountsOf(TWO, "contoso")).toEqual(["contoso"]);
    expect(accountsOf(["default"], undefined)).toEqual(["default"]);
  });

  it("refuses an unknown name", () => {
    expect(refusal(() => accountsOf(TWO, "northwind"))?.[0]?.name).toBe("account");
  });
});

describe("accountParam", () => {
  it("reads account alone, leaves other parameters be, and refuses it given twice", () => {
    expect(accountParam("http://h/api/verifications?wait=30&account=contoso")).toBe("contoso");
    expect(accountParam("http://h/api/verifications?wait=30")).toBeUndefined();
    expect(refusal(() => accountParam("http://h/api/verifications?account=a&account=b"))).toEqual([
      { name: "account", message: "is given 2 times: give it at most once" },
    ]);
  });
});
