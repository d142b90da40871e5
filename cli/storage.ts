import type { TableLocation } from "../shared/adapters/storage/table.js";
import { tableHistory } from "../shared/adapters/storage/tableHistory.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { createRuntime, type Runtime } from "../shared/app/services.js";
import type { History } from "../shared/core/ports/history.js";
import { ConfigError } from "../shared/lib/errors.js";
import { cliEnv, cliSettings } from "./config.js";
import { located } from "./failure.js";
import type { Io } from "./io.js";
import { wrapToWidth } from "./output/text.js";
import { PRODUCTION_STORAGE_NOTE } from "./recordingRuntime.js";

/** The settings that lead to the storage; a problem with one of them is always reported. */
const STORAGE_SETTINGS = [
  "AzureWebJobsStorage",
  "CERTSCHED_LEDGER_TABLE_URI",
  "CERTSCHED_HTTP_TIMEOUT",
];

/** What status, history and runs read: the app's storage, and the service when configured. */
export interface StorageAccess {
  readonly where: TableLocation & { readonly timeoutMs: number };
  readonly history: History;
  /** The service's runtime, when its settings are complete; undefined: storage only. */
  readonly service: Runtime | undefined;
  readonly now: () => Date;
}

/**
 * The storage the function app uses, read with the same settings and rules (the table endpoint
 * with DefaultAzureCredential first, else the connection string). The service's settings are
 * optional here: with only the storage configured, everything but the expiry still works.
 */
export async function withStorage<T>(
  io: Io,
  work: (access: StorageAccess) => Promise<T>,
): Promise<T> {
  let service: Runtime | undefined;
  let storage: { tableUri?: string; connectionString?: string; timeoutMs: number };
  try {
    const settings = await cliSettings(io, []);
    service = createRuntime(settings, { requestTrigger: "cli" });
    storage = {
      tableUri: settings.ledgerTableUri,
      connectionString: settings.storageConnectionString,
      timeoutMs: settings.httpTimeoutMs,
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const own = error.problems.filter((p) => STORAGE_SETTINGS.includes(p.name));
    if (own.length > 0) throw new ConfigError(own);
    // Storage alone: its settings checked by the same schema, the service's filled in unused.
    const { env } = await cliEnv(io);
    const only = loadSettings({
      CERTSCHED_BASE_URL: "https://service.invalid",
      CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
      ...Object.fromEntries(STORAGE_SETTINGS.map((name) => [name, env[name]])),
    });
    storage = {
      tableUri: only.ledgerTableUri,
      connectionString: only.storageConnectionString,
      timeoutMs: only.httpTimeoutMs,
    };
  }
  if (!storage.tableUri && !storage.connectionString) {
    await service?.close();
    io.stderr.write(
      `${wrapToWidth(`certsched: ${PRODUCTION_STORAGE_NOTE}`, io.stderr.columns, "").join("\n")}\n`,
    );
    throw new ConfigError([
      {
        name: "CERTSCHED_LEDGER_TABLE_URI",
        message:
          "is required to read the ledger and the history (or AzureWebJobsStorage): they live in the function app's storage account",
      },
    ]);
  }
  const where = { ...storage };
  const history = tableHistory(where);
  try {
    return await work({ where, history, service, now: () => new Date() });
  } catch (error) {
    throw service ? located(error, service.settings) : error;
  } finally {
    await service?.close();
  }
}
