import { X509Certificate } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { directoryFor } from "../../shared/core/ari/ariSettings.js";
import { certIdOf } from "../../shared/core/ari/certId.js";
import { HostingCa } from "../../sim/hosting/hostingCa.js";
import { type AcmeSimulator, HOSTING_CA_NAME, startAcme } from "../../sim/index.js";

/** The simulator's ACME directory and renewalInfo endpoint (ARI). */

let clock = new Date("2026-11-26T12:00:00Z");
let acme: AcmeSimulator;
beforeAll(async () => {
  acme = await startAcme({ ...inject("loopbackTls"), now: () => clock });
});
afterAll(() => acme.close());
beforeEach(() => {
  acme.clearFaults();
  acme.setRetryAfter("21600");
  acme.requests.splice(0);
  clock = new Date("2026-11-26T12:00:00Z");
});

async function get(url: string, method: "GET" | "POST" = "GET") {
  const res = await request(url, { method });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

describe("the simulator's ACME directory", () => {
  it("names its renewalInfo URL, over TLS the test workers trust", async () => {
    const res = await get(acme.directoryUrl);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ renewalInfo: acme.renewalInfoUrl });
    expect(acme.renewalInfoUrl).toBe(acme.directoryUrl.replace("/directory", "/renewal-info"));
  });

  it("serves the window a test set, with Retry-After, and moves it when told", async () => {
    acme.setWindow("abc.AQ", {
      start: new Date("2026-12-01T00:00:00Z"),
      end: new Date("2026-12-02T00:00:00Z"),
    });
    const first = await get(`${acme.renewalInfoUrl}/abc.AQ`);
    expect(first.status).toBe(200);
    expect(first.headers["retry-after"]).toBe("21600");
    expect(JSON.parse(first.text)).toEqual({
      suggestedWindow: { start: "2026-12-01T00:00:00.000Z", end: "2026-12-02T00:00:00.000Z" },
    });
    acme.renewNow("abc.AQ", "https://ca.example/incident/1");
    acme.setRetryAfter("120");
    const moved = await get(`${acme.renewalInfoUrl}/abc.AQ`);
    expect(moved.headers["retry-after"]).toBe("120");
    expect(JSON.parse(moved.text)).toEqual({
      suggestedWindow: { start: "2026-11-24T12:00:00.000Z", end: "2026-11-25T12:00:00.000Z" },
      explanationURL: "https://ca.example/incident/1",
    });
    acme.setRetryAfter(undefined);
    expect((await get(`${acme.renewalInfoUrl}/abc.AQ`)).headers["retry-after"]).toBeUndefined();
    acme.setWindow("abc.AQ", undefined);
    expect((await get(`${acme.renewalInfoUrl}/abc.AQ`)).status).toBe(404);
  });

  it("answers a CertID it does not know with an ACME problem 404, and only GET", async () => {
    const unknown = await get(`${acme.renewalInfoUrl}/nope.AQ`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(unknown.text)).toMatchObject({ detail: "Certificate nope.AQ not found" });
    expect((await get(acme.directoryUrl, "POST")).status).toBe(405);
    expect((await get(`${acme.directoryUrl}/../other`)).status).toBe(404);
    expect(acme.requests.map((r) => r.method)).toEqual(["GET", "POST", "GET"]);
  });

  it("a default window answers for CertIDs no test set", async () => {
    const other = await startAcme({
      ...inject("loopbackTls"),
      defaultWindow: (certId) =>
        certId.startsWith("known")
          ? { start: new Date("2026-12-01T00:00:00Z"), end: new Date("2026-12-02T00:00:00Z") }
          : undefined,
    });
    try {
      expect((await get(`${other.renewalInfoUrl}/known.AQ`)).status).toBe(200);
      expect((await get(`${other.renewalInfoUrl}/other.AQ`)).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it("stages faults on the directory and on renewalInfo separately", async () => {
    acme.setWindow("f.AQ", { start: new Date(0), end: new Date(1) });
    acme.setFault("renewalInfo", 500);
    expect((await get(acme.directoryUrl)).status).toBe(200);
    const failed = await get(`${acme.renewalInfoUrl}/f.AQ`);
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.text)).toMatchObject({
      type: "urn:ietf:params:acme:error:serverInternal",
    });
    acme.setFault("renewalInfo", "malformed");
    expect(JSON.parse((await get(`${acme.renewalInfoUrl}/f.AQ`)).text)).toEqual({
      suggestedWindow: { start: "soon", end: "later" },
    });
    acme.setFault("renewalInfo", "huge");
    expect((await get(`${acme.renewalInfoUrl}/f.AQ`)).text.length).toBeGreaterThan(1024 * 1024);
    acme.setFault("directory", 500);
    expect((await get(acme.directoryUrl)).status).toBe(500);
  });

  it("a hanging request stays unanswered until the client gives up", async () => {
    acme.setFault("directory", "hang");
    const started = performance.now();
    await expect(
      request(acme.directoryUrl, { signal: AbortSignal.timeout(300) }),
    ).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("the hosting CA's leaves have a CertID, and its O names the directory (the sandbox's ARI)", async () => {
    const ca = await HostingCa.create(clock);
    const leaf = ca.issue(["www.contoso.test"], {
      notBefore: new Date("2026-11-01T00:00:00Z"),
      notAfter: new Date("2027-01-30T00:00:00Z"),
    });
    const id = certIdOf(leaf.cert);
    if (!id.ok) throw new Error(`no CertID: ${id.reason}`);
    const directories = [
      { issuer: HOSTING_CA_NAME.organizationName, directoryUrl: acme.directoryUrl },
    ];
    const issuer = new X509Certificate(leaf.cert).issuer;
    expect(directoryFor(directories, issuer)?.directoryUrl).toBe(acme.directoryUrl);
    acme.renewNow(id.certId);
    const answer = await get(`${acme.renewalInfoUrl}/${id.certId}`);
    expect(answer.status).toBe(200);
    expect(new Date(JSON.parse(answer.text).suggestedWindow.end).getTime()).toBeLessThan(
      clock.getTime(),
    );
  });
});
