import { describe, expect, it } from "vitest";
import type { CertificateRecord } from "../../../../shared/core/certificate/records.js";
import type { CallBudget } from "../../../../shared/core/renewal/callBudget.js";
import { NO_TIME_TO_CONFIRM } from "../../../../shared/core/renewal/callBudget.js";
import { OutcomeUnknownError, UpstreamError } from "../../../../shared/lib/errors.js";
import {
  afterFailure,
  confirmedMessage,
  renewedSince,
} from "../../../../shared/usecases/steps/confirmRenewal.js";

/** A record as far as a confirmation reads it: id, name and expiry. */
const cert = (id: number, expiry: string) =>
  ({
    id,
    certificateName: "web",
    expiryDate: new Date(expiry),
  }) as unknown as CertificateRecord;

const BEFORE = cert(7, "2025-04-01T00:00:00.000Z");
const LATER = cert(7, "2026-04-01T00:00:00.000Z");

const budget = (ms: number): CallBudget => ({ left: () => ms });

/** Get Certificate answering `answer` (or throwing it), counting its calls. */
function service(answer: CertificateRecord | Error) {
  const calls: { name: string; budget: CallBudget | undefined }[] = [];
  return {
    calls,
    client: {
      get: async (name: string, options?: { budget?: CallBudget | undefined }) => {
        calls.push({ name, budget: options?.budget });
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  };
}

const timeout = () => new UpstreamError("UPSTREAM_TIMEOUT", "renew", "renew: no answer");

describe("renewedSince", () => {
  it("confirmed: the same certificate with a later expiry, asked within the budget", async () => {
    const { client, calls } = service(LATER);
    const left = budget(10_000);
    expect(await renewedSince(client, "web", BEFORE, left)).toEqual({ after: LATER });
    expect(calls).toEqual([{ name: "web", budget: left }]);
  });

  it("the same expiry is not yet renewed", async () => {
    const { client } = service(cert(7, "2025-04-01T00:00:00.000Z"));
    expect(await renewedSince(client, "web", BEFORE, budget(10_000))).toEqual({
      why: "Get Certificate does not show a new expiry yet",
    });
  });

  it("another id is another certificate, whatever its expiry", async () => {
    const { client } = service(cert(8, "2027-01-01T00:00:00.000Z"));
    expect(await renewedSince(client, "web", BEFORE, budget(10_000))).toEqual({
      why: "Get Certificate shows another certificate (id 8, not 7)",
    });
  });

  it("without the record from before nothing is asked", async () => {
    const { client, calls } = service(LATER);
    expect(await renewedSince(client, "web", undefined, budget(10_000))).toEqual({
      why: "it could not be looked up with Get Certificate",
    });
    expect(calls).toHaveLength(0);
  });

  it("no time left (0 ms is none): nothing is asked", async () => {
    const { client, calls } = service(LATER);
    expect(await renewedSince(client, "web", BEFORE, budget(0))).toEqual({
      why: NO_TIME_TO_CONFIRM,
    });
    expect(calls).toHaveLength(0);
    expect(await renewedSince(client, "web", BEFORE, budget(1))).toEqual({ after: LATER });
  });

  it("a failed look-up: not yet, or no time when the budget ran out meanwhile", async () => {
    const { client } = service(new Error("503"));
    expect(await renewedSince(client, "web", BEFORE, budget(10_000))).toEqual({
      why: "Get Certificate does not show a new expiry yet",
    });
    let left = 10_000;
    const spent: CallBudget = { left: () => left };
    const draining = {
      get: async () => {
        left = 0;
        throw new Error("timeout");
      },
    };
    expect(await renewedSince(draining, "web", BEFORE, spent)).toEqual({
      why: NO_TIME_TO_CONFIRM,
    });
  });
});

describe("confirmedMessage", () => {
  it("names the certificate and its new expiry", () => {
    expect(confirmedMessage(LATER)).toBe(
      "the service did not answer in time, but Get Certificate shows web renewed (expires 2026-04-01T00:00:00.000Z)",
    );
  });
});

describe("afterFailure", () => {
  it("an unanswered renewal Get Certificate shows done is the record after", async () => {
    const { client } = service(LATER);
    expect(await afterFailure(client, "web", BEFORE, budget(10_000), timeout(), true)).toEqual({
      after: LATER,
    });
  });

  it("else an OutcomeUnknownError saying why", async () => {
    const { client } = service(BEFORE);
    const error = timeout();
    const result = await afterFailure(client, "web", BEFORE, budget(10_000), error, true);
    expect("thrown" in result).toBe(true);
    const thrown = (result as { thrown: unknown }).thrown;
    expect(thrown).toBeInstanceOf(OutcomeUnknownError);
    expect(thrown).toMatchObject({ certificateName: "web", code: "UPSTREAM_TIMEOUT" });
    expect((thrown as Error).message).toContain(
      "and Get Certificate does not show a new expiry yet: it may still have been scheduled",
    );
    expect((thrown as Error).cause).toBe(error);
  });

  it("any other error, or one it may not confirm, is thrown as it is, nothing asked", async () => {
    const { client, calls } = service(LATER);
    const refused = new UpstreamError("UPSTREAM_REJECTED", "renew", "400");
    expect(await afterFailure(client, "web", BEFORE, budget(10_000), refused, true)).toEqual({
      thrown: refused,
    });
    const error = timeout();
    expect(await afterFailure(client, "web", BEFORE, budget(10_000), error, false)).toEqual({
      thrown: error,
    });
    expect(calls).toHaveLength(0);
  });
});
