import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io, OutputStream } from "../../cli/io.js";
import { palette } from "../../cli/output/color.js";
import { run } from "../../cli/run.js";
import { type Sandbox, sandboxBanner, startSandbox } from "../../cli/sandbox.js";
import { type SandboxDashboard, serveSandboxDashboard } from "../../cli/sandboxDashboard.js";
import { escapeHtml } from "../../shared/lib/text/escapeHtml.js";
import { SAMPLE_NOT_LANDED } from "../../sim/index.js";

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

describe("the sandbox's dashboard", () => {
  it("is served on 127.0.0.1 with every sample certificate, after a sweep", async () => {
    const url = new URL(served.url);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.pathname).toBe("/api/dashboard");
    const response = await fetch(served.url);
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const names = [...html.matchAll(/<span class="name">(.*?)<\/span>/g)].map((m) => m[1]);
    // The inventory: each certificate the sweep saw in the due list, all of them samples.
    const samples = sandbox.sim.certificates().map((c) => escapeHtml(c.certificateName));
    expect(names.length).toBeGreaterThanOrEqual(5);
    for (const name of names) expect(samples).toContain(name);
    expect(names).toContain(SAMPLE_NOT_LANDED);
    const statuses = [...html.matchAll(/<tr data-status="([^"]+)"/g)].map((m) => m[1]);
    expect(statuses).toContain("pending");
    // The staged refusal is on the page as a failed renewal, and the run as failed.
    expect(html).toContain('data-status="failed"');
    expect(html).toMatch(/<dd id="last-run"><span class="badge st-failed">failed<\/span>/);
    expect(html).toContain("schedule <code>0 0 3 * * *</code>");
    expect(html).not.toContain(sandbox.settings.CERTSCHED_CLIENT_SECRET ?? "(unset)");
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
        url =
          /Dashboard \(after one sweep and one verification\): (\S+)/.exec(stderr.text)?.[1] ?? "";
        const response = await fetch(url);
        page = { status: response.status, html: await response.text() };
        return "SIGINT";
      },
    };

    const code = await run(["sandbox", "--dashboard"], io);

    expect(code).toBe(0);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/dashboard\?code=[0-9a-f]{32}$/);
    expect(page?.status).toBe(200);
    expect(page?.html).toContain("<h1>certsched: certificates</h1>");
    // Stopped with the sandbox: nothing listens there any more.
    await expect(fetch(url)).rejects.toThrow();
    expect(stdout.text).toMatch(/^CERTSCHED_BASE_URL=/m);
  }, 60_000);

  it("npm start's banner says where to get the dashboard", () => {
    const plain = palette({ isTTY: false, columns: undefined, write() {} }, {});
    expect(sandboxBanner(sandbox, plain).join(" ")).toContain(
      "npx certsched sandbox --dashboard keeps one up, sweeps and verifies it once, and prints the page's URL",
    );
  });
});
