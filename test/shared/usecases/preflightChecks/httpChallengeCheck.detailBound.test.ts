import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  ArmLookups,
  ChallengeAnswer,
  DnsLookups,
} from "../../../../shared/core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import type { PreflightSettings } from "../../../../shared/core/preflight/preflightSettings.js";
import { httpChallengeCheck } from "../../../../shared/usecases/preflightChecks/httpChallengeCheck.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/**
 * Whatever a domain or a probe's detail holds, the check's detail is one line of at most
 * MAX_CHECK_DETAIL characters, and its status and reason follow the answer. The probe here is
 * the port itself (an in-memory ChallengeProbe): what it says is the input under test; the
 * real probe's own details are pinned in test/shared/adapters/preflight/.
 */

const settings: PreflightSettings = {
  armUrl: "https://management.azure.com",
  dnsServers: [],
  caIdentifiers: ["letsencrypt.org"],
  days: 30,
  timeoutMs: 5_000,
  connectTo: [],
};

/** What may never reach a detail: the characters escapeControl makes visible. */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 600 }),
  fc.string({ unit: "grapheme", maxLength: 600 }),
  fc.string({
    unit: fc.constantFrom("a", ".", "\n", "\u001b", "\u202e", "\\", "é"),
    maxLength: 400,
  }),
);
const domain = fc.oneof(
  text,
  text.map((t) => `*.${t}`),
);
const answer: fc.Arbitrary<ChallengeAnswer> = fc.oneof(
  fc.integer({ min: 100, max: 599 }).map((status) => ({ kind: "answered" as const, status })),
  text.map((detail) => ({ kind: "unreachable" as const, detail })),
);

describe("httpChallengeCheck: details and statuses for any input", () => {
  it("one line, at most 299 characters, no control character; fail exactly when unreachable", async () => {
    await fc.assert(
      fc.asyncProperty(domain, answer, async (rootDomain, said) => {
        let asked = 0;
        const probes = {
          dns: {} as DnsLookups,
          arm: {} as ArmLookups,
          challenge: {
            reach: async () => {
              asked += 1;
              return said;
            },
          },
        };
        const { check } = await httpChallengeCheck(
          { certificateName: "c", rootDomain, challengeType: "http" },
          { probes, settings },
        );

        expect(check.check).toBe("http-challenge");
        expect(check.detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
        expect(check.detail).not.toMatch(CONTROL);
        if (rootDomain.startsWith("*.")) {
          expect(asked).toBe(0);
          expect(check.status).toBe("unknown");
          expect(check.reason).toBeUndefined();
        } else if (said.kind === "answered") {
          expect(check).toEqual({
            check: "http-challenge",
            status: "pass",
            detail: `the app answered ${said.status} at /.well-known/acme-challenge/`,
          });
        } else {
          expect(check.status).toBe("fail");
          expect(check.reason).toBe("http-challenge-unreachable");
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
