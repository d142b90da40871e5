import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  armLookups,
  MAX_ARM_ANSWER_BYTES,
  MAX_PAGES,
} from "../../../../shared/adapters/preflight/armLookups.js";
import { MAX_NAME_SERVERS } from "../../../../shared/adapters/preflight/armNames.js";
import type { ArmLookups } from "../../../../shared/core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import { siteId, sitesListPath, zoneId } from "../../../../sim/index.js";
import { startTestArm, type TestArm } from "../../../support/arm.js";

/*
 * The ARM adapter against the simulator's ARM over HTTPS, through the real SDKs (@azure/arm-dns,
 * @azure/arm-appservice) and certsched's own management credential: what each answer of ARM
 * becomes, and that no token ever reaches a detail.
 */

const S = "11111111-2222-3333-4444-555555555555";
/** The timeout of the tests that wait for it: ARM hangs on purpose. */
const TIMEOUT_MS = 400;
/** The timeout of the tests that expect an answer: generous, so a loaded machine never turns one into "unknown". */
const ANSWER_MS = 20_000;

let t: TestArm;
let arm: ArmLookups;
const details: string[] = [];

beforeAll(async () => {
  t = await startTestArm({ pageSize: 2 });
  arm = lookups(ANSWER_MS);
  t.arm.addZone({
    subscriptionId: S,
    resourceGroup: "rg-dns",
    name: "contoso.com",
    nameServers: [
      "ns1-01.azure-dns.com.",
      "ns2-01.azure-dns.net.",
      "ns3-01.azure-dns.org.",
      "ns4-01.azure-dns.info.",
    ],
  });
  t.arm.addSite({
    subscriptionId: S,
    resourceGroup: "rg-web",
    name: "shop",
    hostNames: ["Shop.Contoso.com", "*.shop.contoso.com"],
    slots: [{ name: "staging", hostNames: ["staging.contoso.com"] }],
  });
});
afterAll(async () => {
  // No token, issued to certsched or not, is in any detail any test saw.
  const issued = t.sim.issuedTokens();
  expect(issued.length).toBeGreaterThan(0);
  for (const detail of details) for (const token of issued) expect(detail).not.toContain(token);
  await t.close();
});
beforeEach(() => {
  t.arm.clearFaults();
  t.arm.requests.splice(0);
});

function lookups(timeoutMs = TIMEOUT_MS, maxAnswerBytes?: number): ArmLookups {
  return armLookups({
    armUrl: t.arm.url,
    credential: t.credential,
    timeoutMs,
    resource: t.resource,
    maxAnswerBytes,
  });
}

/** The answer, its detail (if any) kept for the no-token check and held to the contract's shape. */
function seen<A extends { kind: string }>(answer: A): A & { readonly detail?: string } {
  if ("detail" in answer && typeof answer.detail === "string") {
    details.push(answer.detail);
    expect(answer.detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
    expect(answer.detail).not.toMatch(/[\r\n]/);
  }
  return answer;
}

describe("dnsZone", () => {
  it("finds a zone and its name servers, sending certsched's management token", async () => {
    const answer = seen(await arm.dnsZone(S, "rg-dns", "contoso.com"));
    expect(answer).toEqual({
      kind: "found",
      value: {
        nameServers: [
          "ns1-01.azure-dns.com.",
          "ns2-01.azure-dns.net.",
          "ns3-01.azure-dns.org.",
          "ns4-01.azure-dns.info.",
        ],
      },
    });
    expect(t.arm.requests).toHaveLength(1);
    expect(t.arm.requests[0]).toMatchObject({ method: "GET", hadBearer: true });
    // ARM's ids say `dnszones`, its SDK's paths `dnsZones`: ARM compares paths without case.
    expect(t.arm.requests[0]?.path.toLowerCase()).toBe(
      zoneId(S, "rg-dns", "contoso.com").toLowerCase(),
    );
    expect(t.arm.requests[0]?.query).toMatch(/^api-version=/);
  });

  it("is missing when ARM answers 404, naming the zone and the resource group", async () => {
    const answer = seen(await arm.dnsZone(S, "rg-dns", "fabrikam.com"));
    expect(answer.kind).toBe("missing");
    expect(answer.detail).toBe(
      "Azure Resource Manager has no DNS zone fabrikam.com in resource group rg-dns (404 ResourceNotFound)",
    );
  });

  it("is refused 401 when ARM refuses the token, and 403 when the identity lacks the role", async () => {
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), 401);
    const unauthorized = seen(await arm.dnsZone(S, "rg-dns", "contoso.com"));
    expect(unauthorized).toMatchObject({ kind: "refused", status: 401 });
    expect(unauthorized.detail).toContain(
      "refused certsched's management token reading DNS zone contoso.com",
    );
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), 403);
    const forbidden = seen(await arm.dnsZone(S, "rg-dns", "contoso.com"));
    expect(forbidden).toMatchObject({ kind: "refused", status: 403 });
    expect(forbidden.detail).toContain("(403 AuthorizationFailed)");
  });

  it("is unknown on a 500, asked once (no SDK retries)", async () => {
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), 500);
    const answer = seen(await arm.dnsZone(S, "rg-dns", "contoso.com"));
    expect(answer.kind).toBe("unknown");
    expect(answer.detail).toMatch(
      /^Azure Resource Manager answered 500 InternalServerError reading DNS zone contoso\.com/,
    );
    expect(t.arm.requests).toHaveLength(1);
  });

  it("is unknown within the timeout when ARM never answers", async () => {
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), "hang");
    const started = Date.now();
    const answer = seen(await lookups(TIMEOUT_MS).dnsZone(S, "rg-dns", "contoso.com"));
    const took = Date.now() - started;
    expect(answer.kind).toBe("unknown");
    expect(answer.detail).toBe(
      `no answer from Azure Resource Manager within ${TIMEOUT_MS} ms reading DNS zone contoso.com in resource group rg-dns (CERTSCHED_PREFLIGHT_TIMEOUT)`,
    );
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(took).toBeLessThan(TIMEOUT_MS + 5_000);
  });

  it("is unknown when the caller cancels", async () => {
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), "hang");
    const answer = seen(
      await lookups(10_000).dnsZone(S, "rg-dns", "contoso.com", AbortSignal.timeout(50)),
    );
    expect(answer).toEqual({
      kind: "unknown",
      detail: "reading DNS zone contoso.com in resource group rg-dns was cancelled",
    });
  });

  it("is unknown when nothing listens at the ARM URL", async () => {
    const dead = armLookups({
      armUrl: "https://127.0.0.1:1",
      credential: t.credential,
      timeoutMs: ANSWER_MS,
      resource: t.resource,
    });
    const answer = seen(await dead.dnsZone(S, "rg-dns", "contoso.com"));
    expect(answer.kind).toBe("unknown");
    expect(answer.detail).toMatch(
      /^cannot read DNS zone contoso\.com in resource group rg-dns from Azure Resource Manager \(ECONNREFUSED\)/,
    );
  });

  it("keeps at most MAX_NAME_SERVERS name servers of a zone", async () => {
    const many = Array.from({ length: 40 }, (_, i) => `ns${i}.example.net.`);
    t.arm.addZone({
      subscriptionId: S,
      resourceGroup: "rg-dns",
      name: "many.example",
      nameServers: many,
    });
    const answer = seen(await arm.dnsZone(S, "rg-dns", "many.example"));
    expect(answer).toEqual({
      kind: "found",
      value: { nameServers: many.slice(0, MAX_NAME_SERVERS) },
    });
  });
});

describe("hostNameBindings", () => {
  it("lists the bound host names of a site, lower case, its default host name included", async () => {
    const answer = seen(
      await arm.hostNameBindings({ subscriptionId: S, resourceGroup: "rg-web", site: "shop" }),
    );
    expect(answer).toEqual({
      kind: "found",
      value: ["shop.contoso.com", "*.shop.contoso.com", "shop.azurewebsites.net"],
    });
    expect(t.arm.requests.map((r) => r.path)).toEqual([
      `${siteId(S, "rg-web", "shop")}/hostNameBindings`,
    ]);
  });

  it("lists a slot's own bindings", async () => {
    const answer = seen(
      await arm.hostNameBindings({
        subscriptionId: S,
        resourceGroup: "rg-web",
        site: "shop",
        slot: "staging",
      }),
    );
    expect(answer).toEqual({
      kind: "found",
      value: ["staging.contoso.com", "shop-staging.azurewebsites.net"],
    });
    expect(t.arm.requests.map((r) => r.path)).toEqual([
      `${siteId(S, "rg-web", "shop", "staging")}/hostNameBindings`,
    ]);
  });

  it("is missing for an unknown site or slot", async () => {
    const site = seen(
      await arm.hostNameBindings({ subscriptionId: S, resourceGroup: "rg-web", site: "nope" }),
    );
    expect(site).toEqual({
      kind: "missing",
      detail:
        "Azure Resource Manager has no app nope in resource group rg-web (404 ParentResourceNotFound)",
    });
    const slot = seen(
      await arm.hostNameBindings({
        subscriptionId: S,
        resourceGroup: "rg-web",
        site: "shop",
        slot: "nope",
      }),
    );
    expect(slot.kind).toBe("missing");
    expect(slot.detail).toContain("app shop/nope");
  });

  it("is refused 403 and unknown on a hang, like every lookup", async () => {
    t.arm.setFault(siteId(S, "rg-web", "shop"), 403);
    expect(
      seen(
        await arm.hostNameBindings({ subscriptionId: S, resourceGroup: "rg-web", site: "shop" }),
      ),
    ).toMatchObject({ kind: "refused", status: 403 });
    t.arm.setFault(siteId(S, "rg-web", "shop"), "hang");
    const started = Date.now();
    const hung = seen(
      await lookups(TIMEOUT_MS).hostNameBindings({
        subscriptionId: S,
        resourceGroup: "rg-web",
        site: "shop",
        slot: "staging",
      }),
    );
    expect(hung.kind).toBe("unknown");
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5_000);
  });
});

describe("sites", () => {
  it("reads every page of the subscription's apps (3 pages of 2)", async () => {
    const sub = "sub-three-pages";
    for (let i = 1; i <= 5; i++)
      t.arm.addSite({
        subscriptionId: sub,
        resourceGroup: "rg-web",
        name: `app${i}`,
        hostNames: [`WWW${i}.contoso.com`],
      });
    const answer = seen(await arm.sites(sub));
    expect(answer.kind).toBe("found");
    const value = answer.kind === "found" ? answer.value : [];
    expect(value.map((s) => s.name)).toEqual(["app1", "app2", "app3", "app4", "app5"]);
    expect(value[4]).toEqual({
      name: "app5",
      hostNames: ["www5.contoso.com", "app5.azurewebsites.net"],
    });
    expect(t.arm.requests.map((r) => r.path)).toEqual(Array(3).fill(sitesListPath(sub)));
    expect(t.arm.requests.every((r) => r.hadBearer)).toBe(true);
  });

  it("is unknown past MAX_PAGES pages rather than saying the host name is nowhere", async () => {
    const sub = "sub-many-pages";
    for (let i = 0; i < 2 * MAX_PAGES + 1; i++)
      t.arm.addSite({ subscriptionId: sub, resourceGroup: "rg", name: `a${i}`, hostNames: [] });
    const answer = seen(await lookups(5_000).sites(sub));
    expect(answer.kind).toBe("unknown");
    expect(answer.detail).toContain(`more than ${MAX_PAGES} pages`);
    expect(t.arm.requests).toHaveLength(MAX_PAGES + 1);
  });

  it("is found empty for a subscription without apps, and refused 401 when ARM refuses the token", async () => {
    expect(seen(await arm.sites("sub-empty"))).toEqual({ kind: "found", value: [] });
    t.arm.setFault(sitesListPath("sub-empty"), 401);
    expect(seen(await arm.sites("sub-empty"))).toMatchObject({ kind: "refused", status: 401 });
  });
});

describe("the size of an answer (every upstream answer is bounded in bytes, not only in time)", () => {
  it("a body of exactly the bound is read; one byte less of bound and it is unknown, naming the bound", async () => {
    expect(seen(await arm.dnsZone(S, "rg-dns", "contoso.com")).kind).toBe("found");
    const bytes = t.arm.lastAnswerBytes;
    expect(bytes).toBeGreaterThan(100);
    const atBound = seen(await lookups(ANSWER_MS, bytes).dnsZone(S, "rg-dns", "contoso.com"));
    expect(atBound).toMatchObject({ kind: "found", value: { nameServers: expect.any(Array) } });
    const over = seen(await lookups(ANSWER_MS, bytes - 1).dnsZone(S, "rg-dns", "contoso.com"));
    expect(over).toEqual({
      kind: "unknown",
      detail: `Azure Resource Manager's answer (200) reading DNS zone contoso.com in resource group rg-dns is longer than ${bytes - 1} bytes; certsched reads at most that of one answer`,
    });
  });

  it("a list page that never ends: unknown at the default bound (16 MiB), long before the timeout, and the connection closed", async () => {
    t.arm.setFault(sitesListPath("sub-endless"), "endless");
    const before = t.arm.endless.bytes;
    // The timeout is far away: what ends the read is its size.
    const answer = seen(await lookups(60_000).sites("sub-endless"));
    expect(answer).toEqual({
      kind: "unknown",
      detail:
        "Azure Resource Manager's answer (200) reading the apps of subscription sub-endless is longer than 16 MiB; certsched reads at most that of one answer",
    });
    expect(MAX_ARM_ANSWER_BYTES).toBe(16 * 1024 * 1024);
    // certsched closed the connection: the simulator stops writing, having written the bound
    // and what socket buffers hold, not the minute's worth a read to the timeout would take.
    await vi.waitFor(() => expect(t.arm.endless.open).toBe(0), { timeout: 5_000 });
    const written = t.arm.endless.bytes - before;
    expect(written).toBeGreaterThan(MAX_ARM_ANSWER_BYTES);
    expect(written).toBeLessThan(2 * MAX_ARM_ANSWER_BYTES);
    expect(t.arm.requests).toHaveLength(1);
  });

  it("a 403 whose body never ends is still refused 403 (role-missing), its status read, its body not", async () => {
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), "endless-403");
    const answer = seen(await lookups(60_000).dnsZone(S, "rg-dns", "contoso.com"));
    expect(answer).toMatchObject({ kind: "refused", status: 403 });
    expect(answer.detail).toMatch(
      /^Azure Resource Manager refused reading DNS zone contoso\.com in resource group rg-dns \(403 ANSWER_TOO_LARGE\)/,
    );
    await vi.waitFor(() => expect(t.arm.endless.open).toBe(0), { timeout: 5_000 });
  });
});

describe("tokens", () => {
  it("never quotes a token, not even when ARM echoes the Authorization header", async () => {
    t.arm.setFault(zoneId(S, "rg-dns", "contoso.com"), "echo-token");
    const answer = seen(await arm.dnsZone(S, "rg-dns", "contoso.com"));
    expect(answer.kind).toBe("unknown");
    expect(answer.detail).toContain("upstream rejected the request with Bearer [REDACTED]");
    const token = t.credential.lastToken ?? "";
    expect(token).not.toBe("");
    expect(answer.detail).not.toContain(token);
  });

  it("asks the credential for the management resource's scope, not ARM's URL (certsched's credential refuses any other)", async () => {
    const withoutResource = armLookups({
      armUrl: t.arm.url,
      credential: t.credential,
      timeoutMs: 2_000,
    });
    const answer = seen(await withoutResource.dnsZone(S, "rg-dns", "contoso.com"));
    expect(answer).toMatchObject({ kind: "refused", status: 401 });
    expect(answer.detail).toContain(`asked for a token for ${t.arm.url}/.default`);
    expect(t.arm.requests).toHaveLength(0);
  });

  it("is refused 401 with the identity provider's words when no management token can be had", async () => {
    const { startTestArm: start } = await import("../../../support/arm.js");
    const own = await start();
    try {
      own.arm.addZone({
        subscriptionId: S,
        resourceGroup: "rg-dns",
        name: "contoso.com",
        nameServers: ["ns1."],
      });
      own.sim.expireClientSecret();
      const answer = seen(
        await armLookups({
          armUrl: own.arm.url,
          credential: own.credential,
          timeoutMs: 2_000,
          resource: own.resource,
        }).dnsZone(S, "rg-dns", "contoso.com"),
      );
      expect(answer).toMatchObject({ kind: "refused", status: 401 });
      expect(answer.detail).toMatch(
        /^no management token to read DNS zone contoso\.com in resource group rg-dns: .*AADSTS7000222/,
      );
      expect(own.arm.requests).toHaveLength(0);
    } finally {
      await own.close();
    }
  });
});
