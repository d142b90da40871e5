import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMON_OPTIONS } from "../../../cli/command.js";
import { eventsCommandWith, MAX_REPLAY_BYTES } from "../../../cli/commands/events.js";
import { reportFailure } from "../../../cli/failure.js";
import type { Io, OutputStream } from "../../../cli/io.js";
import { parseCommandArgs } from "../../../cli/usage.js";
import { memoryVaultEventStore } from "../../../shared/adapters/storage/memory/memoryVaultEvents.js";
import { KEY_VAULT } from "../../../shared/core/certificate/fields.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { eventGridEvent } from "../../support/vaultEvents.js";

/*
 * certsched events replay FILE in-process, as an operator replays a dead-letter blob: one
 * account of the simulator, its inventory in memory holding one Key Vault certificate whose vault
 * is sent (CERTSCHED_VERIFY_CONNECT_TO) to a port that refuses every connection. The lines, the
 * exit codes, and that nothing is sent to the service.
 */

const A = "north";
let accounts: SimAccounts;
let dir: string;
let refusing: Server;
let refusingPort: number;
let inventory: Inventory;

beforeAll(async () => {
  accounts = await startSimAccounts([A]);
  dir = await mkdtemp(join(tmpdir(), "certsched-events-"));
  // A port that takes the connection and closes it at once: the vault cannot be read.
  refusing = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  refusingPort = (refusing.address() as { port: number }).port;
  inventory = memoryInventory();
  await inventory.upsert([
    {
      certificateName: "www-north",
      id: 7,
      target: KEY_VAULT,
      rootDomain: "www.north.example",
      keyVaultName: "kv-north",
      source: "due-list",
      seenAt: new Date(),
    },
  ]);
});
afterAll(async () => {
  await accounts?.close();
  await new Promise<void>((resolve) => refusing?.close(() => resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

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

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

/** `certsched events <argv>` as cli/run.ts runs a command: failures reported the same way. */
async function events(argv: readonly string[]): Promise<Ran> {
  const command = eventsCommandWith({ inventory, vaultEvents: memoryVaultEventStore() });
  const stdout = capture();
  const stderr = capture();
  const io: Io = {
    env: {
      NO_COLOR: "1",
      ...accounts.env(),
      CERTSCHED_VERIFY_CONNECT_TO: `kv-north.vault.azure.net:443:127.0.0.1:${refusingPort}`,
      CERTSCHED_HTTP_TIMEOUT: "5s",
    },
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
  };
  let code: number;
  try {
    const options = { ...command.options, ...COMMON_OPTIONS };
    const args = parseCommandArgs("events", argv, options, command.maxPositionals);
    code = await command.run(args, io);
  } catch (error) {
    code = reportFailure(error, io, { json: argv.includes("--json"), command: "events" });
  }
  const ran = { code, stdout: stdout.text, stderr: stderr.text };
  for (const secret of accounts.secrets()) expect(ran.stdout + ran.stderr).not.toContain(secret);
  for (const { sim } of accounts.accounts) expect(sim.requests).toEqual([]);
  return ran;
}

/** A dead-letter blob's entry: the event as sent, with Event Grid's notes beside it. */
const deadLettered = (event: Record<string, unknown>) => ({
  ...event,
  deadLetterReason: "MaxDeliveryAttemptsExceeded",
  deliveryAttempts: 30,
  lastDeliveryOutcome: "Probation",
  publishTime: "2026-12-01T10:00:00Z",
  lastDeliveryAttemptTime: "2026-12-02T10:00:00Z",
});

describe("certsched events replay", () => {
  it("skips what it cannot act on, one line each, and exits 0", async () => {
    const path = await file("skipped.json", [
      deadLettered(eventGridEvent({ vaultName: "kv-elsewhere", id: "ev-unwatched" })),
      deadLettered({
        ...eventGridEvent({ id: "ev-secret" }),
        eventType: "Microsoft.KeyVault.SecretNewVersionCreated",
      }),
      deadLettered({ ...eventGridEvent({ id: "ev-bad" }), topic: "/not/a/vault" }),
    ]);

    const ran = await events(["replay", path]);

    expect(ran.code).toBe(0);
    const lines = ran.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^certsched vault event ev-unwatched .*: skipped not-watched: /);
    expect(lines[1]).toMatch(/^certsched vault event ev-secret.*: skipped unknown-type: /);
    expect(lines[2]).toMatch(/^certsched vault event ev-bad.*: skipped malformed: topic/);
    expect(lines[3]).toBe("3 received, 3 with an outcome.");
  });

  it("an event for a watched vault it cannot read fails again: exit 1, the failure on stderr", async () => {
    const path = await file("watched.json", [
      deadLettered(
        eventGridEvent({ vaultName: "kv-north", certificateName: "www-north", id: "ev-north" }),
      ),
    ]);

    const ran = await events(["replay", path]);

    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(
      /certsched vault event ev-north \(new-version kv-north\/www-north version [0-9a-f]+\): failed: /,
    );
    expect(ran.stdout).toContain("1 received, 1 with an outcome, 1 failed.");
    expect(ran.stderr).toContain("certsched: ev-north");
  });

  it("--json: the run as one document", async () => {
    const path = await file(
      "one.json",
      eventGridEvent({ vaultName: "kv-elsewhere", id: "ev-json" }),
    );

    const ran = await events(["replay", path, "--json"]);

    expect(ran.code).toBe(0);
    const document = JSON.parse(ran.stdout) as {
      received: number;
      outcomes: { id: string; outcome: string }[];
      failed: string[];
    };
    expect(document.received).toBe(1);
    expect(document.outcomes).toEqual([
      expect.objectContaining({ id: "ev-json", outcome: "not-watched" }),
    ]);
    expect(document.failed).toEqual([]);
  });

  it.each([
    [[], /events needs replay FILE, not a subcommand/],
    [["play", "x.json"], /events needs replay FILE, not "play"/],
    [["replay"], /events replay needs the events FILE/],
  ])("usage %j: exit 2, saying what is needed", async (argv, said) => {
    const ran = await events(argv);

    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(said);
  });

  it("a file that is missing, not JSON, or too large: exit 2 naming the file, nothing handled", async () => {
    const missing = await events(["replay", join(dir, "nowhere.json")]);
    const notJson = await events(["replay", await file("text.json", "<html>not json</html>")]);
    const large = await file("large.json", " ".repeat(MAX_REPLAY_BYTES + 1));
    const tooLarge = await events(["replay", large]);

    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the events file .*nowhere\.json: not found/);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/the events file .*text\.json is not JSON/);
    expect(tooLarge.code).toBe(2);
    expect(tooLarge.stderr).toMatch(/large\.json is 16777217 bytes: at most 16777216 are read/);
    for (const ran of [missing, notJson, tooLarge]) expect(ran.stdout).toBe("");
  });
});
