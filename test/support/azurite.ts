import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A running Azurite table service owned by the caller. */
export interface AzuriteHandle {
  /** Connection string for the well-known development account. */
  connectionString: string;
  port: number;
  /** Kills the process and resolves once it has exited; safe to call twice. */
  stop(): Promise<void>;
}

/** How long Azurite may take to accept connections (ms); it usually needs under a second. */
const READY_TIMEOUT_MS = 20_000;
/** How long to wait for a graceful exit after SIGTERM before SIGKILL (ms). */
const STOP_GRACE_MS = 5_000;
/** Another process may take the port between our probe and Azurite's bind: try a few ports. */
const PORT_ATTEMPTS = 3;

// Azurite's published, non-secret development account (documented by Microsoft).
const DEV_ACCOUNT = "devstoreaccount1";
const DEV_KEY =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/**
 * Starts `azurite-table` in memory on 127.0.0.1 and a free port, and waits until it accepts
 * connections. Rejects with Azurite's stderr if it exits before that.
 */
export async function startAzurite(): Promise<AzuriteHandle> {
  const bin = await azuriteTableBin();
  let lastError: unknown;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
    const port = await freePort();
    try {
      return await startOn(bin, port);
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && error.message.includes("EADDRINUSE"))) throw error;
    }
  }
  throw lastError;
}

async function startOn(bin: string, port: number): Promise<AzuriteHandle> {
  // Azurite refuses --location with --inMemoryPersistence; run it in a scratch directory so any
  // file it still writes stays out of the working tree.
  const scratch = await mkdtemp(join(tmpdir(), "certsched-azurite-"));
  const child = spawn(
    process.execPath,
    [
      bin,
      "--inMemoryPersistence",
      "--silent",
      "--skipApiVersionCheck",
      "--disableTelemetry",
      "--tableHost",
      "127.0.0.1",
      "--tablePort",
      String(port),
    ],
    { cwd: scratch, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    // Keep the tail only: it holds the reason for an early exit.
    stderr = (stderr + chunk).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    // spawn() reports a missing executable as 'error' with no 'exit'.
    child.once("error", () => resolve());
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await kill(child, exited);
      await rm(scratch, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    await waitForPort(port, child, exited, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    // Azurite's documented form: with DefaultEndpointsProtocol=http, every service needs a
    // loopback endpoint, or its derived one (http://<account>.blob.core.windows.net) is refused.
    // Only the table service runs; nothing here reaches the blob or queue ports.
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};BlobEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};QueueEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};TableEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`,
    stop,
  };
}

/** The JS file behind azurite's `azurite-table` bin, run with our own node (no shell). */
async function azuriteTableBin(): Promise<string> {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("azurite/package.json");
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
    bin?: Record<string, string>;
  };
  const relative = manifest.bin?.["azurite-table"];
  if (!relative) throw new Error(`azurite at ${manifestPath} declares no azurite-table bin`);
  return join(dirname(manifestPath), relative);
}

/** Asks the OS for a free port by binding port 0, then releases it for Azurite to take. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("Could not pick a free port"))));
    });
  });
}

async function waitForPort(
  port: number,
  child: ChildProcess,
  exited: Promise<void>,
  stderr: () => string,
): Promise<void> {
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited || child.exitCode !== null) {
      throw new Error(
        `Azurite exited before listening on 127.0.0.1:${port} (exit code ${child.exitCode}): ${stderr().trim() || "no stderr"}`,
      );
    }
    if (await accepts(port)) return;
    await sleep(100);
  }
  throw new Error(
    `Azurite did not accept connections on 127.0.0.1:${port} within ${READY_TIMEOUT_MS} ms: ${stderr().trim() || "no stderr"}`,
  );
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function kill(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill("SIGTERM");
  const graceful = await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS, false)]);
  if (!graceful) {
    child.kill("SIGKILL");
    await exited;
  }
}
