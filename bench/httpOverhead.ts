import type { HttpResponseInit } from "@azure/functions";
import { Agent, request } from "undici";
import {
  type BuiltRequest,
  buildCreateRequest,
  buildListRequest,
} from "../shared/adapters/service/requests.js";
import { getAccountPorts, resetServices } from "../shared/app/services.js";
import type { CreateCertificateInput } from "../shared/core/certificate/createRequest.js";
import { sampleCertificates, sandboxSettings, startSimulator } from "../sim/index.js";
import { quietly, withEnv } from "./isolation.js";
import type { Section } from "./report.js";
import { formatMs, mean, quantile } from "./stats.js";

export interface HttpOverheadOptions {
  /** Measured calls per side and operation (after the warm-up). */
  readonly iterations: number;
  readonly warmup: number;
  readonly progress: (line: string) => void;
}

/** A valid create request (App Service, http challenge), as a caller sends it to certsched. */
const CREATE_INPUT = {
  certificateName: "bench-create",
  rootDomain: "contoso.com",
  email: "admin@contoso.com",
  password: "bench-pfx-password",
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-00000000be0c",
  target: "Cloud App Service" as const,
  challengeType: "http" as const,
  cloudAppServicePlanName: "plan-bench",
  cloudAppServicePlanResourceGroup: "rg-plan",
  cloudAppServiceResourceGroup: "rg-app",
  cloudAppServiceName: "bench-web",
  cloudAppServiceSlotName: "",
} satisfies CreateCertificateInput;

interface Pair {
  readonly raw: number[];
  readonly handler: number[];
}

/** Alternates which side goes first, so neither always runs on a warmer connection. */
async function measurePair(
  iterations: number,
  warmup: number,
  raw: () => Promise<void>,
  handler: () => Promise<void>,
): Promise<Pair> {
  for (let i = 0; i < warmup; i++) {
    await raw();
    await handler();
  }
  const out: Pair = { raw: [], handler: [] };
  const time = async (work: () => Promise<void>, into: number[]) => {
    const t = performance.now();
    await work();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < iterations; i++) {
    if (i % 2 === 0) {
      await time(raw, out.raw);
      await time(handler, out.handler);
    } else {
      await time(handler, out.handler);
      await time(raw, out.raw);
    }
  }
  return out;
}

function expectStatus(what: string, got: number | undefined, want: number, body?: unknown): void {
  if (got !== want) throw new Error(`${what} answered ${got}, expected ${want}: ${String(body)}`);
}

function rows(operation: string, pair: Pair): Section["rows"][number][] {
  const p50 = quantile(pair.handler, 0.5) - quantile(pair.raw, 0.5);
  const p99 = quantile(pair.handler, 0.99) - quantile(pair.raw, 0.99);
  const rps = (samples: number[]) => Math.round(1000 / mean(samples));
  return [
    {
      measure: `${operation}: handler p50 / p99`,
      value: `${formatMs(quantile(pair.handler, 0.5))} / ${formatMs(quantile(pair.handler, 0.99))}`,
    },
    {
      measure: `${operation}: raw undici request p50 / p99`,
      value: `${formatMs(quantile(pair.raw, 0.5))} / ${formatMs(quantile(pair.raw, 0.99))}`,
    },
    {
      measure: `${operation}: added time p50`,
      value: formatMs(p50),
      goal: "< 1 ms",
      met: p50 < 1,
    },
    { measure: `${operation}: added time p99`, value: formatMs(p99) },
    {
      measure: `${operation}: requests per second, one at a time (handler / raw)`,
      value: `${rps(pair.handler)} / ${rps(pair.raw)}`,
    },
  ];
}

/**
 * Section 3: what the handlers add on top of the upstream call they make. Both sides hit the
 * same zero-latency simulator with the same request (same body, same tokens); the raw side is
 * a bare undici request on its own keep-alive agent.
 */
export async function httpOverheadBench(options: HttpOverheadOptions): Promise<Section> {
  const sim = await startSimulator({ latencyMs: 0, certificates: sampleCertificates(new Date()) });
  const agent = new Agent({ connections: 64 });
  try {
    return await withEnv(sandboxSettings(sim), async () => {
      await resetServices();
      const [azure, { listDueCertificates }, { createCertificate }] = await quietly(() =>
        Promise.all([
          import("@azure/functions"),
          import("../functions/listDueCertificates.js"),
          import("../functions/createCertificate.js"),
        ]),
      );
      // A CommonJS package: Node's ES module view has the classes on the default export only.
      const { HttpRequest, InvocationContext } = azure.default;
      const runtime = getAccountPorts();
      const { settings } = runtime;
      const tokens = {
        management: await runtime.tokens.token(settings.managementResource),
        vault: await runtime.tokens.token(settings.vaultResource),
      };
      let invocation = 0;
      const context = (functionName: string) =>
        new InvocationContext({
          invocationId: `bench-${++invocation}`,
          functionName,
          logHandler: () => {},
        });
      const rawCall = (req: BuiltRequest) => async () => {
        const res = await request(req.url, {
          method: "POST",
          headers: req.headers,
          body: req.body,
          dispatcher: agent,
        });
        const text = await res.body.text();
        expectStatus("raw request", res.statusCode, 200, text);
      };
      // The host builds the request object; only the handler call is timed.
      const handlerCall =
        (
          makeRequest: () => InstanceType<typeof HttpRequest>,
          handler: (
            req: InstanceType<typeof HttpRequest>,
            ctx: InstanceType<typeof InvocationContext>,
          ) => Promise<HttpResponseInit>,
          name: string,
          want: number,
        ) =>
        async () => {
          const req = makeRequest();
          const res = await handler(req, context(name));
          expectStatus(name, res.status, want, res.body);
        };

      const list = await measurePair(
        options.iterations,
        options.warmup,
        rawCall(buildListRequest(settings.publicBaseUrl, settings.subscriptionId ?? "", tokens)),
        handlerCall(
          () =>
            new HttpRequest({ method: "GET", url: "http://localhost:7071/api/certificates/due" }),
          listDueCertificates,
          "listDueCertificates",
          200,
        ),
      );
      options.progress("http overhead: listDueCertificates done");
      const body = JSON.stringify(CREATE_INPUT);
      const create = await measurePair(
        options.iterations,
        options.warmup,
        rawCall(
          buildCreateRequest(settings.baseUrl, settings.subscription ?? "", settings.apiKey ?? "", {
            ...CREATE_INPUT,
            accessToken: tokens.management,
          }),
        ),
        handlerCall(
          () =>
            new HttpRequest({
              method: "POST",
              url: "http://localhost:7071/api/certificates",
              headers: { "content-type": "application/json" },
              body: { string: body },
            }),
          createCertificate,
          "createCertificate",
          202,
        ),
      );
      options.progress("http overhead: createCertificate done");
      await resetServices();
      return {
        title: "HTTP overhead of the handlers",
        rows: [
          ...rows(`listDueCertificates (${sampleDue(sim)} due)`, list),
          ...rows("createCertificate", create),
        ],
        notes: [
          `Handlers called in-process (new HttpRequest / new InvocationContext, as the tests call them; request construction is not timed) with process.env set to sandboxSettings(sim) and resetServices(), against a simulator with no added latency. ${options.iterations} calls per side after ${options.warmup} warm-up calls, the two sides alternating.`,
          "Raw = the same upstream POST (built by shared/adapters/service/requests.ts with the same tokens and body) sent with undici's request() on a keep-alive Agent, reading the body as text. Added time = handler percentile minus raw percentile.",
          "listDueCertificates adds: token cache look-up, retry agent, zod validation of each record, the certificate view and JSON serialisation; createCertificate adds: body read and zod validation of the input, token and API-key look-up, retry agent.",
          "Requests per second: sequential (one call in flight), 1000 / mean call time.",
        ],
      };
    });
  } finally {
    await resetServices();
    await agent.close();
    await sim.close();
  }
}

function sampleDue(sim: { certificates(): { expiryDate: Date }[] }): number {
  const limit = Date.now() + 20 * 86_400_000;
  return sim.certificates().filter((c) => c.expiryDate.getTime() <= limit).length;
}
