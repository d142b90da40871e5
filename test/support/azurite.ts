import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A running Azurite table service, and its queue service beside it, owned by the caller. */
export interface AzuriteHandle {
  /**
   * Connection string for the well-known development account: TableEndpoint and QueueEndpoint
   * lead to the two services (BlobEndpoint to the table port: no blob service runs).
   */
  connectionString: string;
  /** The table service's port. */
  port: number;
  /** The queue service's port. */
  queuePort: number;
  /** Kills both processes and resolves once they have exited; safe to call twice. */
  stop(): Promise<void>;
}

/** One Azurite service process. */
interface Service {
  readonly port: number;
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
 * Starts `azurite-table` and `azurite-queue` in memory on 127.0.0.1 and free ports, and waits
 * until both accept connections. Rejects with Azurite's stderr if one exits before that.
 */
export async function startAzurite(): Promise<AzuriteHandle> {
  const table = await startService("azurite-table", "table");
  let queue: Service;
  try {
    queue = await startService("azurite-queue", "queue");
  } catch (error) {
    await table.stop();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const base = (port: number) => `http://127.0.0.1:${port}/${DEV_ACCOUNT}`;
  return {
    port: table.port,
    queuePort: queue.port,
    // Azurite's documented form: with DefaultEndpointsProtocol=http, every service needs a
    // loopback endpoint, or its derived one (http://<account>.blob.core.windows.net) is refused.
    // No blob service runs; nothing here reaches the blob endpoint.
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};BlobEndpoint=${base(table.port)};QueueEndpoint=${base(queue.port)};TableEndpoint=${base(table.port)};`,
    stop: () => {
      stopping ??= Promise.all([table.stop(), queue.stop()]).then(() => undefined);
      return stopping;
    },
  };
}

/** One service on a free port, tried on another when the port is taken meanwhile. */
async function startService(name: string, service: "table" | "queue"): Promise<Service> {
  const bin = await azuriteBin(name);
  let lastError: unknown;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
    const port = await freePort();
    try {
      return await startOn(bin, service, port);
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && error.message.includes("EADDRINUSE"))) throw error;
    }
  }
  throw lastError;
}

async function startOn(bin: string, service: "table" | "queue", port: number): Promise<Service> {
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
      `--${service}Host`,
      "127.0.0.1",
      `--${service}Port`,
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
  return { port, stop };
}

/** The JS file behind one of azurite's bins, run with our own node (no shell). */
async function azuriteBin(name: string): Promise<string> {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("azurite/package.json");
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
    bin?: Record<string, string>;
  };
  const relative = manifest.bin?.[name];
  if (!relative) throw new Error(`azurite at ${manifestPath} declares no ${name} bin`);
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
