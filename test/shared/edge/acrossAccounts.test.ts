import { describe, expect, it } from "vitest";
import { acrossAccounts, errorsPart } from "../../../shared/edge/acrossAccounts.js";
import { CertschedError } from "../../../shared/lib/errors.js";

const refused = () =>
  new CertschedError("TOKEN_REFUSED", "the identity provider refused the client secret");
const options = { concurrency: 2, invocationId: "inv-1" };

describe("acrossAccounts", () => {
  it("keeps every account's part in order, and one failed account as its problem", async () => {
    const warnings: string[] = [];
    const { parts, accountErrors } = await acrossAccounts(
      ["a", "b", "c"],
      async (account) => {
        if (account === "b") throw refused();
        return account.toUpperCase();
      },
      { ...options, log: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} } },
    );
    expect(parts).toEqual([
      { account: "a", value: "A" },
      { account: "c", value: "C" },
    ]);
    expect(accountErrors).toEqual([
      {
        account: "b",
        status: 502,
        code: "TOKEN_REFUSED",
        title: "The identity provider refused certsched's credentials",
        detail: "the identity provider refused the client secret",
      },
    ]);
    expect(warnings).toEqual([
      "certsched account b failed (TOKEN_REFUSED): The identity provider refused certsched's credentials: the identity provider refused the client secret",
    ]);
    expect(errorsPart(accountErrors)).toEqual({ accountErrors });
    expect(errorsPart([])).toEqual({});
  });

  it("throws the first error when every account failed (a single account answers as before)", async () => {
    const first = refused();
    await expect(
      acrossAccounts(
        ["a", "b"],
        async (account) => {
          throw account === "a" ? first : new Error("other");
        },
        options,
      ),
    ).rejects.toBe(first);
  });

  it("runs at most `concurrency` accounts at once", async () => {
    let running = 0;
    let most = 0;
    await acrossAccounts(
      ["a", "b", "c", "d", "e"],
      async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
      },
      options,
    );
    expect(most).toBe(2);
  });

  it("answers an unexpected failure as an internal error, never its message", async () => {
    const { accountErrors } = await acrossAccounts(
      ["a", "b"],
      async (account) => {
        if (account === "a") throw new TypeError("secret stack detail");
        return 1;
      },
      options,
    );
    expect(accountErrors[0]).toMatchObject({ account: "a", status: 500, code: "INTERNAL" });
    expect(JSON.stringify(accountErrors)).not.toContain("secret stack detail");
  });
});
