import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAtCap } from "../../../../bench/memoryBench.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { MAX_RESPONSE_BYTES } from "../../../../shared/lib/http/attempt.js";
import type { Simulator } from "../../../../sim/index.js";
import {
  expectNoSecretLeaks,
  failure,
  runtimeFor,
  type Sandbox,
  startSandbox,
} from "../../../support/simulatorServices.js";

/*
 * The list's 64 MiB cap allowed a list that ran a 512 MB instance out of
 * memory. The cap is now what fits (MAX_RESPONSE_BYTES; the bench measures peak RSS at it, see
 * docs/performance.md). These pin the boundary over a real socket: a body of exactly the cap is
 * read, one byte more is refused.
 */

let sandbox: Sandbox;
let sim: Simulator;
let runtime: AccountPorts;

/** A JSON array of the smallest valid records, padded with whitespace to exactly `bytes`. */
function listOfExactly(bytes: number): { body: string; count: number } {
  const { body, count } = listAtCap(bytes, new Date());
  return { body: `${body.slice(0, -1)}${" ".repeat(bytes - body.length)}]`, count };
}

beforeAll(async () => {
  sandbox = await startSandbox();
  sim = sandbox.sim;
  runtime = runtimeFor(sim);
});
afterAll(async () => {
  await runtime.close();
  await sandbox.close();
  expectNoSecretLeaks();
});

describe(`the list's size cap (${MAX_RESPONSE_BYTES} bytes)`, () => {
  it("is 12 MiB, not the 64 MiB that ran a 512 MB instance out of memory", () => {
    expect(MAX_RESPONSE_BYTES).toBe(12 * 1024 * 1024);
  });

  it("reads a list of exactly the cap", { timeout: 30_000 }, async () => {
    const { body, count } = listOfExactly(MAX_RESPONSE_BYTES);
    expect(Buffer.byteLength(body)).toBe(MAX_RESPONSE_BYTES);
    sim.inject("list", { status: 200, headers: { "content-type": "application/json" }, body });

    const due = await runtime.client.listDue();

    expect(due.certificates).toHaveLength(count);
    expect(due.rejected).toEqual([]);
  });

  it("refuses one byte more, naming the cap", { timeout: 30_000 }, async () => {
    const { body } = listOfExactly(MAX_RESPONSE_BYTES + 1);
    sim.inject("list", { status: 200, headers: { "content-type": "application/json" }, body });

    const error = await failure(runtime.client.listDue());

    expect(error).toMatchObject({ code: "UPSTREAM_BAD_RESPONSE", upstream: "list" });
    expect(error.message).toBe(
      `list: response larger than ${MAX_RESPONSE_BYTES} bytes (12 MiB), the most certsched reads`,
    );
  });
});
