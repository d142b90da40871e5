import { readdir } from "node:fs/promises";
import type {
  EventGridFunctionOptions,
  HttpFunctionOptions,
  StorageQueueFunctionOptions,
  TimerFunctionOptions,
} from "@azure/functions";
import { beforeAll, describe, expect, it, vi } from "vitest";

/**
 * What the host would register: the functions library's `app` is replaced by a recorder (the
 * only mock in this suite; our own HTTP layer is never mocked). Everything else stays real.
 */
const registered = vi.hoisted(() => ({
  http: new Map<string, unknown>(),
  timer: new Map<string, unknown>(),
  storageQueue: new Map<string, unknown>(),
  eventGrid: new Map<string, unknown>(),
}));

vi.mock("@azure/functions", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@azure/functions")>();
  return {
    ...actual,
    app: {
      ...actual.app,
      http: (name: string, options: unknown) => registered.http.set(name, options),
      timer: (name: string, options: unknown) => registered.timer.set(name, options),
      storageQueue: (name: string, options: unknown) => registered.storageQueue.set(name, options),
      eventGrid: (name: string, options: unknown) => registered.eventGrid.set(name, options),
    },
  };
});

const MODULES: Record<string, () => Promise<Record<string, unknown>>> = {
  createCertificate: () => import("../../functions/createCertificate.js"),
  renewCertificate: () => import("../../functions/renewCertificate.js"),
  listDueCertificates: () => import("../../functions/listDueCertificates.js"),
  getCertificate: () => import("../../functions/getCertificate.js"),
  runRenewals: () => import("../../functions/runRenewals.js"),
  testConnectivity: () => import("../../functions/testConnectivity.js"),
  renewDueCertificates: () => import("../../functions/renewDueCertificates.js"),
  cleanupHistory: () => import("../../functions/cleanupHistory.js"),
  dashboard: () => import("../../functions/dashboard.js"),
  verifyCertificates: () => import("../../functions/verifyCertificates.js"),
  getVerifications: () => import("../../functions/getVerifications.js"),
  runVerifications: () => import("../../functions/runVerifications.js"),
  listCertificates: () => import("../../functions/listCertificates.js"),
  getRenewalRun: () => import("../../functions/getRenewalRun.js"),
  runQueuedRenewals: () => import("../../functions/runQueuedRenewals.js"),
  poisonedRenewals: () => import("../../functions/poisonedRenewals.js"),
  preflightCertificates: () => import("../../functions/preflightCertificates.js"),
  getPreflight: () => import("../../functions/getPreflight.js"),
  runPreflight: () => import("../../functions/runPreflight.js"),
  listIssuances: () => import("../../functions/listIssuances.js"),
  acknowledgeIssuance: () => import("../../functions/acknowledgeIssuance.js"),
  watchTransparency: () => import("../../functions/watchTransparency.js"),
  keyVaultEvents: () => import("../../functions/keyVaultEvents.js"),
  recheckVaultConsumers: () => import("../../functions/recheckVaultConsumers.js"),
  discoverEstate: () => import("../../functions/discoverEstate.js"),
  getEstate: () => import("../../functions/getEstate.js"),
};

const exported = new Map<string, unknown>();

beforeAll(async () => {
  for (const [name, load] of Object.entries(MODULES)) exported.set(name, (await load())[name]);
});

const http = (name: string) => registered.http.get(name) as HttpFunctionOptions | undefined;

describe("function registrations", () => {
  it("covers every module in functions/", async () => {
    const files = await readdir(new URL("../../functions/", import.meta.url));
    const modules = files.filter((f) => f.endsWith(".ts")).map((f) => f.replace(/\.ts$/, ""));
    expect(modules.sort()).toEqual(Object.keys(MODULES).sort());
  });

  it("registers exactly the sixteen HTTP functions and the six timers", () => {
    expect([...registered.http.keys()].sort()).toEqual([
      "acknowledgeIssuance",
      "createCertificate",
      "dashboard",
      "getCertificate",
      "getEstate",
      "getPreflight",
      "getRenewalRun",
      "getVerifications",
      "listCertificates",
      "listDueCertificates",
      "listIssuances",
      "renewCertificate",
      "runPreflight",
      "runRenewals",
      "runVerifications",
      "testConnectivity",
    ]);
    expect([...registered.timer.keys()].sort()).toEqual([
      "cleanupHistory",
      "discoverEstate",
      "preflightCertificates",
      "renewDueCertificates",
      "verifyCertificates",
      "watchTransparency",
    ]);
    // Every function module registers exactly one function: 26 in all (three of them preflight's,
    // three Certificate Transparency's, two Key Vault events', two the estate's).
    const total =
      registered.http.size +
      registered.timer.size +
      registered.storageQueue.size +
      registered.eventGrid.size;
    expect(total).toBe(Object.keys(MODULES).length);
    expect(total).toBe(26);
  });

  it("the run queue and its poison queue each have their trigger, on the host's storage", async () => {
    const { RUN_QUEUE, POISON_QUEUE } = await import("../../shared/core/runs/run.js");
    const queue = (name: string) =>
      registered.storageQueue.get(name) as StorageQueueFunctionOptions | undefined;

    expect([...registered.storageQueue.keys()].sort()).toEqual([
      "poisonedRenewals",
      "recheckVaultConsumers",
      "runQueuedRenewals",
    ]);
    expect(queue("runQueuedRenewals")).toMatchObject({
      queueName: RUN_QUEUE,
      connection: "AzureWebJobsStorage",
    });
    expect(queue("poisonedRenewals")).toMatchObject({
      queueName: POISON_QUEUE,
      connection: "AzureWebJobsStorage",
    });
    expect(POISON_QUEUE).toBe("certsched-runs-poison");
    expect(queue("runQueuedRenewals")?.handler).toBe(exported.get("runQueuedRenewals"));
    expect(queue("poisonedRenewals")?.handler).toBe(exported.get("poisonedRenewals"));
  });

  it("Key Vault's events reach keyVaultEvents on an Event Grid trigger; its rechecks come back on their own queue", async () => {
    const { RECHECK_QUEUE } = await import("../../shared/core/ports/vaultEvents.js");
    const events = registered.eventGrid.get("keyVaultEvents") as
      | EventGridFunctionOptions
      | undefined;
    const recheck = registered.storageQueue.get("recheckVaultConsumers") as
      | StorageQueueFunctionOptions
      | undefined;

    expect([...registered.eventGrid.keys()]).toEqual(["keyVaultEvents"]);
    expect(events?.handler).toBe(exported.get("keyVaultEvents"));
    expect(RECHECK_QUEUE).toBe("certsched-vault-rechecks");
    expect(recheck).toMatchObject({
      queueName: "certsched-vault-rechecks",
      connection: "AzureWebJobsStorage",
    });
    expect(recheck?.handler).toBe(exported.get("recheckVaultConsumers"));
  });

  it("the history cleanup runs daily at 04:30 UTC, after the default sweep, never on startup", () => {
    const options = registered.timer.get("cleanupHistory") as TimerFunctionOptions;

    expect(options.schedule).toBe("0 30 4 * * *");
    expect(options.runOnStartup).not.toBe(true);
    expect(options.handler).toBe(exported.get("cleanupHistory"));
  });

  it.each([
    ["createCertificate", "certificates", ["POST"]],
    ["renewCertificate", "certificates/{name}/renew", ["POST"]],
    ["listDueCertificates", "certificates/due", ["GET"]],
    ["getCertificate", "certificates/{name}", ["GET"]],
    ["listCertificates", "certificates", ["GET"]],
    ["runRenewals", "renewals", ["POST"]],
    ["getRenewalRun", "renewals/{runId}", ["GET"]],
    ["testConnectivity", "connectivity", ["GET"]],
    ["getVerifications", "verifications", ["GET"]],
    ["runVerifications", "verifications", ["POST"]],
    ["dashboard", "dashboard", ["GET"]],
    ["getPreflight", "preflight", ["GET"]],
    ["runPreflight", "preflight", ["POST"]],
    ["listIssuances", "issuances", ["GET"]],
    ["acknowledgeIssuance", "issuances/{id}/ack", ["POST"]],
  ])("%s: route %s, methods %j, function key required", (name, route, methods) => {
    const options = http(name);

    expect(options).toMatchObject({ route, methods, authLevel: "function" });
    // The registered handler is the exported one the other tests call.
    expect(options?.handler).toBe(exported.get(name));
  });

  it("the timer runs on %CERTSCHED_RENEWAL_SCHEDULE%, never on startup", () => {
    const options = registered.timer.get("renewDueCertificates") as TimerFunctionOptions;

    expect(options.schedule).toBe("%CERTSCHED_RENEWAL_SCHEDULE%");
    expect(options.runOnStartup).not.toBe(true);
    expect(options.handler).toBe(exported.get("renewDueCertificates"));
  });

  it("the verification timer runs on %CERTSCHED_VERIFY_SCHEDULE%, never on startup", () => {
    const options = registered.timer.get("verifyCertificates") as TimerFunctionOptions;

    expect(options.schedule).toBe("%CERTSCHED_VERIFY_SCHEDULE%");
    expect(options.runOnStartup).not.toBe(true);
    expect(options.handler).toBe(exported.get("verifyCertificates"));
  });

  it("the preflight timer runs on %CERTSCHED_PREFLIGHT_SCHEDULE%, never on startup", () => {
    const options = registered.timer.get("preflightCertificates") as TimerFunctionOptions;

    expect(options.schedule).toBe("%CERTSCHED_PREFLIGHT_SCHEDULE%");
    expect(options.runOnStartup).not.toBe(true);
    expect(options.handler).toBe(exported.get("preflightCertificates"));
  });

  it("the estate timer runs on %CERTSCHED_ESTATE_SCHEDULE%, never on startup; GET /api/estate", () => {
    const options = registered.timer.get("discoverEstate") as TimerFunctionOptions;
    expect(options.schedule).toBe("%CERTSCHED_ESTATE_SCHEDULE%");
    expect(options.runOnStartup).toBeUndefined();
    expect(options.handler).toBe(exported.get("discoverEstate"));
    expect(http("getEstate")).toMatchObject({
      methods: ["GET"],
      route: "estate",
      authLevel: "function",
    });
  });

  it("the Certificate Transparency timer runs on %CERTSCHED_CT_SCHEDULE%, never on startup", () => {
    const options = registered.timer.get("watchTransparency") as TimerFunctionOptions;

    expect(options.schedule).toBe("%CERTSCHED_CT_SCHEDULE%");
    expect(options.runOnStartup).not.toBe(true);
    expect(options.handler).toBe(exported.get("watchTransparency"));
  });

  it("no two HTTP functions share a route and method", () => {
    const pairs = [...registered.http.values()].flatMap((o) => {
      const { route, methods } = o as HttpFunctionOptions;
      return (methods ?? []).map((m) => `${m} ${route}`);
    });
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it("GET certificates/{name} sits beside the literal certificates/due, which the host matches first", () => {
    // ASP.NET Core routing (the host's) ranks a literal segment above a parameter, so
    // certificates/due keeps reaching listDueCertificates; the price, documented in the README,
    // is that a certificate named "due" is read with `certsched get due`, not over HTTP.
    const routes = [...registered.http.values()]
      .map((o) => o as HttpFunctionOptions)
      .filter((o) => o.methods?.includes("GET"))
      .map((o) => o.route);
    expect(routes).toEqual(expect.arrayContaining(["certificates/due", "certificates/{name}"]));
    // No other GET route has two segments under certificates/ to compete with them.
    expect(routes.filter((r) => r?.startsWith("certificates/"))).toHaveLength(2);
  });
});
