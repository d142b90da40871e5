import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  HttpRequest,
  type HttpRequestInit,
  type HttpResponseInit,
  InvocationContext,
} from "@azure/functions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../functions/createCertificate.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { bundleFunctionApp } from "../../scripts/bundle.mjs";
import { resetServices } from "../../shared/app/services.js";
import {
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { validCreateInputs } from "../support/createBodies.js";

/*
 * The deployment bundle (scripts/bundle.mjs) is what the cold-start figures in
 * docs/performance.md are about: these tests hold that it is the same app as the sources
 * (same answers, over real sockets) and that undici and zod's translations stay off its load path.
 */

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const tag = randomBytes(8).toString("hex");
const secrets = { apiKey: `apikey-${tag}`, clientSecret: `clientsecret-${tag}` };

let outdir: string;
let built: Awaited<ReturnType<typeof bundleFunctionApp>>;
let bundled: Record<string, unknown>;
let sim: Simulator;
const savedEnv = { ...process.env };
const logs: string[] = [];

const VALID = {
  ...validCreateInputs().appServiceHttp,
  certificateName: "bundle-check",
  password: `pfx-${tag}`,
};

function context(functionName: string): InvocationContext {
  return new InvocationContext({
    invocationId: "00000000-0000-4000-8000-0000000000aa",
    functionName,
    logHandler: (_level, ...args) => logs.push(args.map(String).join(" ")),
  });
}

/** Status and body, with the per-invocation parts that legitimately differ removed. */
async function answer(handler: Handler, init: HttpRequestInit, functionName: string) {
  const res = await handler(new HttpRequest(init), context(functionName));
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

function bundledHandler(name: string): Handler {
  const handler = bundled[name];
  if (typeof handler !== "function") throw new Error(`the bundle does not export ${name}`);
  return handler as Handler;
}

beforeAll(async () => {
  // Inside the project, so the modules the bundle leaves external resolve as in production.
  // A clean clone has no node_modules/.cache yet.
  const cache = path.join(ROOT, "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  outdir = await mkdtemp(path.join(cache, "bundle-test-"));
  built = await bundleFunctionApp({ root: ROOT, outdir });
  sim = await startSimulator({ ...secrets, certificates: sampleCertificates(new Date()) });
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("CERTSCHED_") || key === "AzureWebJobsStorage") delete process.env[key];
  }
  Object.assign(process.env, sandboxSettings(sim));
  await resetServices();
  bundled = (await import(pathToFileURL(built.entry).href)) as Record<string, unknown>;
}, 60_000);

afterAll(async () => {
  await resetServices();
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  await sim?.close();
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe("deployment bundle", () => {
  it("registers every function in functions/ (its entry exports each handler)", () => {
    const expected = built.functions.map((file) => file.replace(/\.ts$/, "")).sort();
    expect(expected.length).toBeGreaterThan(0);
    for (const name of expected) expect(typeof bundled[name], name).toBe("function");
  });

  it("keeps undici, zod and certsched's own work off the load path", () => {
    const entryKey = path.relative(ROOT, built.entry).split(path.sep).join("/");
    const outputs = built.metafile.outputs;
    const entry = outputs[entryKey];
    expect(entry).toBeDefined();
    const eager = [
      entryKey,
      ...(entry?.imports ?? [])
        .filter((i) => i.kind === "import-statement" && !i.external)
        .map((i) => i.path),
    ];
    const eagerInputs = eager.flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
    // Registration needs @azure/functions alone: each handler loads its work on the first call.
    expect(eagerInputs.some((i) => i.includes("node_modules/@azure/functions/"))).toBe(true);
    expect(eagerInputs.filter((i) => i.includes("node_modules/zod/"))).toEqual([]);
    expect(eagerInputs.filter((i) => i.includes("node_modules/undici/"))).toEqual([]);
    expect(eagerInputs.filter((i) => i.startsWith("shared/"))).toEqual([]);
    const all = Object.values(outputs).flatMap((o) => Object.keys(o.inputs));
    expect(all.filter((i) => /node_modules\/zod\/.*locales\/(?!en\.js)/.test(i))).toEqual([]);
    expect(all.some((i) => i.includes("node_modules/zod/"))).toBe(true);
    // undici is still in the bundle, in a chunk loaded on the first call.
    expect(all.some((i) => i.includes("node_modules/undici/"))).toBe(true);
  });

  const createCases: [string, string][] = [
    ["a valid App Service request", JSON.stringify(VALID)],
    ["an e-mail that is not one", JSON.stringify({ ...VALID, email: "nobody" })],
    ["an unknown target", JSON.stringify({ ...VALID, target: "Cloud Nowhere" })],
    ["a field from another case", JSON.stringify({ ...VALID, keyVaultName: "kv" })],
    ["a token the caller must not send", JSON.stringify({ ...VALID, accessToken: "x" })],
    ["wrong types", JSON.stringify({ ...VALID, isSAN: "yes", rootDomain: 5 })],
    ["an empty object", "{}"],
    ["malformed JSON", "{"],
  ];

  it.each(createCases)("answers createCertificate like the sources: %s", async (_, body) => {
    const init: HttpRequestInit = {
      method: "POST",
      url: "http://localhost:7071/api/certificates",
      headers: { "content-type": "application/json" },
      body: { string: body },
    };
    const creates = sim.requestsFor("create").length;
    const fromSources = await answer(createCertificate, init, "createCertificate");
    const fromBundle = await answer(bundledHandler("createCertificate"), init, "createCertificate");
    expect(fromBundle).toEqual(fromSources);
    const reachedService = sim.requestsFor("create").length - creates;
    expect(reachedService).toBe(fromSources.status === 202 ? 2 : 0);
  });

  it("answers listDueCertificates like the sources, over its own undici chunk", async () => {
    const init: HttpRequestInit = {
      method: "GET",
      url: "http://localhost:7071/api/certificates/due",
    };
    const fromSources = await answer(listDueCertificates, init, "listDueCertificates");
    const fromBundle = await answer(
      bundledHandler("listDueCertificates"),
      init,
      "listDueCertificates",
    );
    expect(fromSources.status).toBe(200);
    expect(fromBundle).toEqual(fromSources);
    expect((fromBundle.body.certificates as unknown[]).length).toBeGreaterThan(0);
  });

  it("leaks no secret into logs", () => {
    const values = [secrets.apiKey, secrets.clientSecret, VALID.password, ...sim.issuedTokens()];
    expect(values.filter((v) => logs.some((line) => line.includes(v)))).toEqual([]);
  });
});
