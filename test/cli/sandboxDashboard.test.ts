import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io, OutputStream } from "../../cli/io.js";
import { palette } from "../../cli/output/color.js";
import { run } from "../../cli/run.js";
import { type Sandbox, sandboxBanner, startSandbox } from "../../cli/sandbox.js";
import { type SandboxDashboard, serveSandboxDashboard } from "../../cli/sandboxDashboard.js";
import { escapeHtml } from "../../shared/lib/text/escapeHtml.js";
import { SAMPLE_NOT_LANDED, SANDBOX_ESTATE_UNMANAGED } from "../../sim/index.js";
import { SAMPLE_SHARED_NAME } from "../../sim/sandbox.js";

/**
 * `certsched sandbox --dashboard`: after one sweep and one verification of the samples, the page
 * served on loopback shows every sample certificate, the staged refusal as failed, and the last
 * run; the throwaway key guards it as the host's function key would.
 */

let sandbox: Sandbox;
let served: SandboxDashboard;

beforeAll(async () => {
  sandbox = await startSandbox();
  served = await serveSandboxDashboard(sandbox);
}, 60_000);
afterAll(async () => {
  await served?.close();
  await sandbox?.close();
});

/** The certificate names a page lists. */
const namesOn = (html: string) =>
  [...html.matchAll(/<span class="name">(.*?)<\/span>/g)].map((m) => m[1]);

describe("the sandbox's dashboard", () => {
  it("is served on 127.0.0.1, one page per account, each with that account's certificates alone, after a sweep", async () => {
    expect(Object.keys(served.urls)).toEqual(["contoso", "fabrikam"]);
    expect(served.url).toBe(served.urls.contoso);
    const pages: Record<string, string> = {};
    for (const [name, address] of Object.entries(served.urls)) {
      const url = new URL(address);
      expect(url.hostname).toBe("127.0.0.1");
      expect(url.pathname).toBe(`/api/accounts/${name}/dashboard`);
      const response = await fetch(address);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
      pages[name] = await response.text();
    }
    const contoso = pages.contoso ?? "";
    const fabrikam = pages.fabrikam ?? "";

    // The inventory: each certificate the sweep saw in the account's due list, all of them its own.
    for (const [name, html] of [
      ["contoso", contoso],
      ["fabrikam", fabrikam],
    ] as const) {
      const own = sandbox
        .account(name)
        .sim.certificates()
        .map((c) => escapeHtml(c.certificateName));
      const names = namesOn(html);
      expect(names.length, name).toBeGreaterThanOrEqual(3);
      for (const listed of names) expect(own).toContain(listed);
      // The name both accounts hold, on both pages.
      expect(names).toContain(SAMPLE_SHARED_NAME);
      expect(html).toContain("schedule <code>0 0 3 * * *</code>");
      for (const secret of sandbox.secrets()) expect(html).not.toContain(secret);
    }
    const statuses = (html: string) =>
      [...html.matchAll(/<tr data-status="([^"]+)"/g)].map((m) => m[1]);
    expect(namesOn(contoso)).toContain(SAMPLE_NOT_LANDED);
    expect(statuses(contoso)).toContain("pending");
    // Every fabrikam renewal landed.
    expect(new Set(statuses(fabrikam))).toEqual(new Set(["ok"]));
    expect(namesOn(fabrikam)).toContain("legacy-fabrikam-com");
    // The staged refusal is contoso's: on its page as a failed renewal, and its run as failed;
    // fabrikam's run succeeded.
    expect(contoso).toContain('data-status="failed"');
    expect(contoso).toMatch(/<dd id="last-run"><span class="badge st-failed">failed<\/span>/);
    expect(fabrikam).not.toContain('data-status="failed"');
    expect(fabrikam).not.toMatch(/<dd id="last-run"><span class="badge st-failed">/);
    // The estate: contoso's discovery kept as its timer keeps it, so its page shows the
    // gateway's certificate nobody keeps; fabrikam's estate was never discovered.
    const estateOf = (html: string) => html.slice(html.indexOf('<section id="estate"'));
    expect(estateOf(contoso)).toContain(
      `<span class="name estate-name">${SANDBOX_ESTATE_UNMANAGED.certificate}</span>`,
    );
    expect(estateOf(contoso)).toContain(`(in ${SANDBOX_ESTATE_UNMANAGED.days} days)`);
    expect(estateOf(fabrikam)).toContain("Not discovered yet");
  });

  it("answers 401 without its key, as the host would", async () => {
    const url = new URL(served.url);
    url.searchParams.delete("code");
    expect((await fetch(url)).status).toBe(401);
  });
});

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

describe("certsched sandbox --dashboard", () => {
  it("prints the page's URL, serves it until interrupted, then stops it", async () => {
    const stdout = capture();
    const stderr = capture();
    let page: { status: number; html: string } | undefined;
    let url = "";
    const io: Io = {
      env: {},
      cwd: "/nonexistent-certsched-test-dir",
      stdout,
      stderr,
      // "Interrupted" once the page has been read over HTTP, as a person would open it.
      untilInterrupted: async () => {
        url = /^ {2}fabrikam: (\S+)$/m.exec(stderr.text)?.[1] ?? "";
        const response = await fetch(url);
        page = { status: response.status, html: await response.text() };
        return "SIGINT";
      },
    };

    const code = await run(["sandbox", "--dashboard"], io);

    expect(code).toBe(0);
    expect(stderr.text).toMatch(
      /^Dashboards, one per account \(after one sweep and one verification\):\n {2}contoso: http:\/\/127\.0\.0\.1:\d+\/api\/accounts\/contoso\/dashboard\?code=[0-9a-f]{32}\n {2}fabrikam: /m,
    );
    expect(url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/accounts\/fabrikam\/dashboard\?code=[0-9a-f]{32}$/,
    );
    expect(page?.status).toBe(200);
    expect(page?.html).toContain("<h1>certsched: certificates</h1>");
    // Stopped with the sandbox: nothing listens there any more.
    await expect(fetch(url)).rejects.toThrow();
    expect(stdout.text).toMatch(/^CERTSCHED_ACCOUNTS=\[/m);
    expect(stdout.text).not.toMatch(/^CERTSCHED_BASE_URL=/m);
  }, 60_000);

  it("npm start's banner says where to get the dashboard", () => {
    const plain = palette({ isTTY: false, columns: undefined, write() {} }, {});
    expect(sandboxBanner(sandbox, plain).join(" ")).toContain(
      "npx certsched sandbox --dashboard keeps one page per account up, sweeps and verifies each account once, and prints each page's URL",
    );
  });
});
