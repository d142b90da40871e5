import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io, OutputStream } from "../../../cli/io.js";
import { type Sandbox, startSandbox } from "../../../cli/sandbox.js";
import { sweepSandbox, sweepSandboxAccounts } from "../../../cli/sandboxSweep.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import type { AccountPorts } from "../../../shared/app/services.js";
import { ConfigError } from "../../../shared/lib/errors.js";
import { silentLogger } from "../../../shared/lib/log.js";
import { sweep as runSweep } from "../../../shared/usecases/sweep/sweep.js";
import { SAMPLE_REFUSAL } from "../../../sim/index.js";
import { SAMPLE_SHARED_NAME } from "../../../sim/sandbox.js";

/**
 * The sandbox's two accounts: one simulator each, its own credentials, declared in
 * CERTSCHED_ACCOUNTS. A sandbox sweep renews every due certificate of both accounts, each
 * through its own service with its own credentials, and the name both accounts hold is renewed
 * once in each: counted on each simulator's wire.
 */

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await startSandbox();
});
afterEach(async () => {
  await sandbox?.close();
});

/** Renew requests one simulator received, v3 and public, refused ones included. */
function renewRequests(name: string): number {
  const sim = sandbox.account(name).sim;
  return sim.requestsFor("renew").length + sim.requestsFor("publicRenew").length;
}

/** The sweep the CLI runs for one account, without its terminal. */
const sweep = (runtime: AccountPorts) => runSweep(runtime, silentLogger, { trigger: "cli" });

/** Each certificate name's renewals the simulator carried out (a refused one is not). */
function renewsOn(name: string): Record<string, number> {
  const sim = sandbox.account(name).sim;
  const counts: Record<string, number> = {};
  for (const cert of sim.certificates()) {
    const n = sim.renewCallsFor(cert.certificateName);
    if (n > 0) counts[cert.certificateName] = n;
  }
  return counts;
}

/** A stream that keeps what is written. */
function capture(): OutputStream & { text: string } {
  const stream = {
    text: "",
    isTTY: false,
    columns: undefined,
    write(chunk: string) {
      stream.text += chunk;
    },
  };
  return stream;
}

describe("the sandbox's accounts", () => {
  it("are declared in CERTSCHED_ACCOUNTS alone, each with its own service and credentials", () => {
    expect(Object.keys(sandbox.settings).sort()).toEqual([
      "CERTSCHED_ACCOUNTS",
      "CERTSCHED_ARI_DIRECTORIES",
      "CERTSCHED_ARI_TIMEOUT",
      // Preflight's ARM, DNS server and timeout.
      "CERTSCHED_ARM_URL",
      "CERTSCHED_DNS_SERVERS",
      "CERTSCHED_PREFLIGHT_TIMEOUT",
      "CERTSCHED_VERIFY_CONNECT_TO",
    ]);
    const settings = loadSettings(sandbox.settings);
    expect(settings.accountsDeclared).toBe(true);
    expect(settings.accounts.map((a) => [a.name, a.baseUrl])).toEqual([
      ["contoso", sandbox.account("contoso").sim.baseUrl],
      ["fabrikam", sandbox.account("fabrikam").sim.baseUrl],
    ]);
    const [contoso, fabrikam] = sandbox.accounts.map((a) => a.sim.options);
    for (const field of [
      "apiKey",
      "clientSecret",
      "tenantId",
      "clientId",
      "subscription",
    ] as const) {
      expect(contoso?.[field], field).not.toBe(fabrikam?.[field]);
    }
    // Both hold a certificate of the same name.
    for (const account of sandbox.accounts) {
      expect(account.sim.certificates().map((c) => c.certificateName)).toContain(
        SAMPLE_SHARED_NAME,
      );
    }
  });
});

describe("a sandbox sweep", () => {
  it("renews both accounts' due certificates, the shared name once in each, each on its own service", async () => {
    const swept = await sweepSandboxAccounts(sandbox, sweep);

    expect(swept.parts.map((p) => p.account)).toEqual(["contoso", "fabrikam"]);
    expect(swept.passes).toBe(true);
    // On each simulator's wire: one renew request per due certificate, the shared name's included.
    expect(renewsOn("contoso")).toEqual({
      "www-contoso-com": 1,
      "shop-contoso-com": 1,
      // Not api-contoso-com: contoso's renewal calendar holds it for its window.
      "staging-contoso-com": 1,
      [SAMPLE_SHARED_NAME]: 1,
      // Not due: the staged ARI renewal, after contoso's verification.
      "static-contoso-com": 1,
    });
    expect(renewsOn("fabrikam")).toEqual({
      "legacy-fabrikam-com": 1,
      "vault-fabrikam-com": 1,
      [SAMPLE_SHARED_NAME]: 1,
    });
    // The refused one was asked for once too, and the ARI one: six reached contoso, three fabrikam.
    expect(renewRequests("contoso")).toBe(6);
    expect(renewRequests("fabrikam")).toBe(3);
    // What each account's part reports: contoso's staged refusal, fabrikam all renewed.
    const [contoso, fabrikam] = swept.parts;
    expect(contoso?.summary.counts).toMatchObject({
      due: 6,
      "renewal-scheduled": 4,
      failed: 1,
      waiting: 1,
    });
    expect(contoso?.staged).toEqual(["intranet-contoso-com"]);
    expect(contoso?.ari).toMatchObject({
      certificateName: "static-contoso-com",
      renewal: { outcome: "scheduled" },
    });
    expect(fabrikam?.ari).toBeUndefined();
    expect(fabrikam?.summary.counts).toMatchObject({ due: 3, "renewal-scheduled": 3, failed: 0 });
    expect(fabrikam?.staged).toEqual([]);
    // Each account's ledger holds its own row of the shared name, under its own id.
    for (const account of sandbox.accounts) {
      const shared = account.sim
        .certificates()
        .find((c) => c.certificateName === SAMPLE_SHARED_NAME);
      const row = await account.ledger.read(shared?.id ?? -1);
      expect(row?.record, account.name).toMatchObject({
        certificateName: SAMPLE_SHARED_NAME,
        outcome: "renewal-scheduled",
      });
    }
    // And each verification reads the renewed shared certificate in its own account's vault.
    for (const part of swept.parts) {
      const vault = `kv-${part.account}/${SAMPLE_SHARED_NAME}`;
      expect(part.verification?.results.find((r) => r.domain === vault)?.status).toBe("ok");
    }
  });

  it("sends each account's requests with that account's credentials only, to its own service", async () => {
    await sweepSandboxAccounts(sandbox, sweep);

    for (const account of sandbox.accounts) {
      const own = account.sim;
      const others = sandbox.accounts.filter((a) => a !== account).map((a) => a.sim);
      const foreign = others.flatMap((o) => [
        o.options.apiKey,
        o.options.clientSecret,
        ...o.issuedTokens(),
      ]);
      expect(own.requests.length, account.name).toBeGreaterThan(0);
      for (const request of own.requests) {
        const wire = JSON.stringify(request.headers) + request.body + request.query;
        for (const secret of foreign) expect(wire).not.toContain(secret);
      }
      // The service's requests carry this account's own key or a token its own provider issued
      // (v3), or name its own subscription (public operations, which need no credential).
      const mine = [own.options.apiKey, ...own.issuedTokens()];
      for (const request of own.requests.filter((r) => r.operation !== "token")) {
        const where = `${account.name} ${request.method} ${request.path}`;
        const credential = request.headers.authorization;
        if (credential !== undefined) {
          expect(
            mine.some((m) => credential.includes(m)),
            where,
          ).toBe(true);
        } else {
          expect(request.path, where).toContain(`/subscription/${own.options.subscriptionId}/`);
        }
      }
      // Tokens were asked of this account's own identity provider, for its own app registration.
      for (const request of own.requestsFor("token")) {
        expect(request.path).toContain(own.options.tenantId);
        expect(request.body).toContain(encodeURIComponent(own.options.clientId));
      }
    }
  });

  it("as the CLI shows it: each account's part under its heading, one line per account, exit 0", async () => {
    const stdout = capture();
    const stderr = capture();
    const io: Io = {
      env: {},
      cwd: "/nonexistent-certsched-test-dir",
      stdout,
      stderr,
      untilInterrupted: () => Promise.resolve("SIGTERM"),
    };

    const code = await sweepSandbox(io, { json: false, sandbox }, sweep);

    expect(code).toBe(0);
    const out = stdout.text;
    const contoso = out.slice(out.indexOf("Account contoso ("), out.indexOf("Account fabrikam ("));
    const fabrikam = out.slice(out.indexOf("Account fabrikam ("), out.indexOf("2 accounts:"));
    expect(contoso).toMatch(new RegExp(`^${SAMPLE_SHARED_NAME}\\s.*renewal-scheduled$`, "m"));
    expect(fabrikam).toMatch(new RegExp(`^${SAMPLE_SHARED_NAME}\\s.*renewal-scheduled$`, "m"));
    expect(contoso).toContain(SAMPLE_REFUSAL);
    expect(fabrikam).not.toContain(SAMPLE_REFUSAL);
    expect(out).toMatch(
      /^ {2}contoso: 6 due: 4 renewal-scheduled, 1 failed, 1 waiting \(as staged\)$/m,
    );
    expect(out).toMatch(/^ {2}fabrikam: 3 due: 3 renewal-scheduled \(ok\)$/m);
    expect(sandbox.account("contoso").sim.renewCallsFor(SAMPLE_SHARED_NAME)).toBe(1);
    expect(sandbox.account("fabrikam").sim.renewCallsFor(SAMPLE_SHARED_NAME)).toBe(1);
    for (const secret of sandbox.secrets()) expect(out + stderr.text).not.toContain(secret);
  });

  it("exits 1 when an account fails beyond what is staged, and still renews the other's", async () => {
    // fabrikam's service refuses every credential: its list fails; contoso renews as staged.
    sandbox
      .account("fabrikam")
      .sim.inject("list", { status: 401, body: "Unauthorized", times: Number.POSITIVE_INFINITY });
    const stdout = capture();
    const stderr = capture();
    const io: Io = {
      env: {},
      cwd: "/nonexistent-certsched-test-dir",
      stdout,
      stderr,
      untilInterrupted: () => Promise.resolve("SIGTERM"),
    };

    const code = await sweepSandbox(io, { json: true, sandbox }, sweep);

    expect(code).toBe(1);
    const doc = JSON.parse(stdout.text) as {
      failed: boolean;
      passes: boolean;
      accounts: { name: string; failed: boolean; problems: string[] }[];
    };
    expect(doc).toMatchObject({ failed: true, passes: false });
    expect(doc.accounts.map((a) => [a.name, a.failed])).toEqual([
      ["contoso", true],
      ["fabrikam", true],
    ]);
    expect(doc.accounts[1]?.problems.join(" ")).toMatch(/list/i);
    // contoso's due six but the one its calendar holds, and its staged ARI renewal.
    expect(renewRequests("contoso")).toBe(6);
    expect(renewRequests("fabrikam")).toBe(0);
  });

  it("with an account named, sweeps that account alone; an unknown name is a ConfigError listing both", async () => {
    const stdout = capture();
    const io: Io = {
      env: {},
      cwd: "/nonexistent-certsched-test-dir",
      stdout,
      stderr: capture(),
      untilInterrupted: () => Promise.resolve("SIGTERM"),
    };

    const code = await sweepSandbox(io, { json: false, sandbox, account: "fabrikam" }, sweep);

    expect(code).toBe(0);
    expect(renewRequests("contoso")).toBe(0);
    expect(sandbox.account("contoso").sim.requests).toHaveLength(0);
    expect(renewRequests("fabrikam")).toBe(3);
    expect(stdout.text).not.toContain("Account contoso");
    expect(stdout.text).toMatch(/^1 account:\n {2}fabrikam: 3 due: 3 renewal-scheduled \(ok\)$/m);
    const unknown = sweepSandbox(io, { json: false, sandbox, account: "northwind" }, sweep);
    await expect(unknown).rejects.toBeInstanceOf(ConfigError);
    await expect(unknown).rejects.toMatchObject({
      problems: [
        {
          name: "account",
          message: "'northwind' is unknown: the accounts are 'contoso', 'fabrikam'",
        },
      ],
    });
    expect(renewRequests("fabrikam")).toBe(3);
  });
});
