import { afterEach, describe, expect, it } from "vitest";
import { challengeProbe } from "../../../../shared/adapters/preflight/challengeProbe.js";
import type {
  ArmLookups,
  DnsLookups,
  PreflightProbes,
} from "../../../../shared/core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import type { PreflightSettings } from "../../../../shared/core/preflight/preflightSettings.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import type { CheckSubject } from "../../../../shared/usecases/preflightChecks/checkTypes.js";
import { httpChallengeCheck } from "../../../../shared/usecases/preflightChecks/httpChallengeCheck.js";
import {
  CHALLENGE_OTHER_HOST,
  type HostingChallenge,
  type Simulator,
  startSimulator,
} from "../../../../sim/index.js";

/**
 * The `http-challenge` check with the real probe, against the simulator's challenge listener
 * over loopback: what a person reads in the preflight table for each way an app answers.
 */

const expiryDate = new Date(Date.now() + 40 * 86_400_000);

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** This check reads neither DNS nor ARM: any call is a failure of the test. */
const unused = new Proxy(
  {},
  {
    get: (_target, name) => () => {
      throw new Error(`http-challenge called ${String(name)}`);
    },
  },
);

async function setUp(timeoutMs = 5_000) {
  sim = await startSimulator({
    certificates: [
      { certificateName: "www-contoso", rootDomain: "www.contoso.test", expiryDate },
      { certificateName: "wild-contoso", rootDomain: "*.contoso.test", expiryDate },
    ],
    hosting: {},
  });
  const hosting = sim.hosting;
  if (!hosting) throw new Error("no hosting side");
  const challenge: HostingChallenge = hosting.challenge;
  const connectTo = parseConnectTo(`${challenge.connectTo},${hosting.connectTo}`);
  const settings: PreflightSettings = {
    armUrl: "https://management.azure.com",
    dnsServers: [],
    caIdentifiers: ["letsencrypt.org"],
    days: 30,
    timeoutMs,
    connectTo,
  };
  const probes: PreflightProbes = {
    dns: unused as DnsLookups,
    arm: unused as ArmLookups,
    challenge: challengeProbe({ connectTo, timeoutMs }),
  };
  const run = (rootDomain: string, signal?: AbortSignal) => {
    const subject: CheckSubject = {
      certificateName: "www-contoso",
      rootDomain,
      challengeType: "http",
      target: "Cloud App Service",
    };
    return httpChallengeCheck(subject, { probes, settings, signal });
  };
  return { challenge, run, at: `127.0.0.1:${challenge.port}` };
}

describe("httpChallengeCheck", () => {
  it("passes when the app answers 404 at the challenge path (no token placed yet)", async () => {
    const { run, challenge } = await setUp();

    const outcome = await run("www.contoso.test");

    expect(outcome).toEqual({
      check: {
        check: "http-challenge",
        status: "pass",
        detail: "the app answered 404 at /.well-known/acme-challenge/",
      },
    });
    expect(outcome.check).not.toHaveProperty("reason");
    expect(challenge.requests).toHaveLength(1);
  });

  it("passes for any other status the app gives, saying which", async () => {
    const { run, challenge } = await setUp();
    challenge.behave("www.contoso.test", { status: 200 });

    expect((await run("www.contoso.test")).check).toMatchObject({
      status: "pass",
      detail: "the app answered 200 at /.well-known/acme-challenge/",
    });
    challenge.behave("www.contoso.test", "redirect-https");
    expect((await run("www.contoso.test")).check).toMatchObject({
      status: "pass",
      detail: "the app answered 301 at /.well-known/acme-challenge/",
    });
  });

  it.each([
    ["refuse", (at: string) => `the connection was closed without an answer at ${at}`],
    [
      "tls-only",
      (at: string) => `${at} answered in TLS, not plain HTTP: port 80 must answer http://`,
    ],
    [
      "redirect-elsewhere",
      () => `redirects to ${CHALLENGE_OTHER_HOST} (301 to http://${CHALLENGE_OTHER_HOST})`,
    ],
  ] as const)(
    "fails http-challenge-unreachable when the app does %s",
    async (behaviour, detail) => {
      const { run, challenge, at } = await setUp();
      challenge.behave("www.contoso.test", behaviour);

      expect(await run("www.contoso.test")).toEqual({
        check: {
          check: "http-challenge",
          status: "fail",
          reason: "http-challenge-unreachable",
          detail: detail(at),
        },
      });
    },
  );

  it("fails when the app never answers, within the timeout and some slack", async () => {
    const { run, challenge, at } = await setUp(300);
    challenge.behave("www.contoso.test", "hang");

    const started = performance.now();
    const outcome = await run("www.contoso.test");

    expect(outcome.check).toMatchObject({
      status: "fail",
      reason: "http-challenge-unreachable",
      detail: `no answer within 300 ms at ${at}`,
    });
    expect(performance.now() - started).toBeLessThan(300 + 1_000);
  });

  it("a run cut short is not the app's failure: unknown", async () => {
    const { run, challenge } = await setUp();
    challenge.behave("www.contoso.test", "hang");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    expect((await run("www.contoso.test", controller.signal)).check).toEqual({
      check: "http-challenge",
      status: "unknown",
      detail: "the check was cancelled before the app answered",
    });
  });

  it("a wildcard is unknown, saying it needs the dns challenge; the app is not asked", async () => {
    const { run, challenge } = await setUp();

    expect((await run("*.contoso.test")).check).toEqual({
      check: "http-challenge",
      status: "unknown",
      detail:
        "*.contoso.test is a wildcard: the http challenge cannot prove a wildcard, it needs the dns challenge",
    });
    expect(challenge.requests).toHaveLength(0);
  });

  it("a detail from a name of any length is one line of at most 299 characters", async () => {
    const { run } = await setUp();
    const long = `*.${"\u001b[31m".repeat(60)}.test`;

    const { check } = await run(long);

    expect(check.status).toBe("unknown");
    expect(check.detail).toHaveLength(MAX_CHECK_DETAIL);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may remain.
    expect(check.detail).not.toMatch(/[\u0000-\u001f]/);
    expect(check.detail.startsWith("*.\\u{1b}[31m")).toBe(true);
    expect(check.detail.endsWith("…")).toBe(true);
  });
});
