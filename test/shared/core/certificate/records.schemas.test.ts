import { afterAll, describe, expect, it } from "vitest";
import { createCertificateInput } from "../../../../shared/core/certificate/createRequest.js";
import {
  certificateList,
  certificateRecord,
  MAX_CERTIFICATE_NAME_CHARS,
  tokenResponse,
} from "../../../../shared/core/certificate/records.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { parseOrThrow } from "../../../../shared/lib/zodProblems.js";
import {
  type CreateInputCase,
  createInputs,
  expectNoSecretLeaks,
  recordError,
  textsOf,
  watchSecret,
} from "../../../support/simulatorServices.js";

type Body = Record<string, unknown>;

function issuesOf(body: Body): { name: string; message: string }[] {
  try {
    parseOrThrow(createCertificateInput, body, "create request");
  } catch (error) {
    recordError(error);
    expect(error).toBeInstanceOf(ValidationError);
    return [...(error as ValidationError).issues];
  }
  throw new Error("expected the create request to be refused");
}

function variant(name: CreateInputCase, patch: Body, remove: string[] = []): Body {
  const body: Body = { ...createInputs()[name], ...patch };
  for (const key of remove) delete body[key];
  return body;
}

afterAll(() => expectNoSecretLeaks());

describe("create request: the three field sets of spec 2.1", () => {
  it.each<[string, Body]>([
    ["App Service + http", variant("appServiceHttp", {})],
    ["App Service + http in a slot", variant("appServiceSlot", {})],
    ["App Service + dns", variant("appServiceDns", {})],
    ["Key Vault + dns", variant("keyVault", {})],
    ["a multi-name certificate", variant("keyVault", { isSAN: true })],
  ])("accepts %s unchanged", (_, body) => {
    expect(parseOrThrow(createCertificateInput, body, "create request")).toEqual(body);
  });

  it.each<[string, Body, string, RegExp]>([
    [
      "App Service + http with dnsZoneResourceGroup",
      variant("appServiceHttp", { dnsZoneResourceGroup: "rg-dns" }),
      "dnsZoneResourceGroup",
      /not allowed for target "Cloud App Service" with challengeType "http"/,
    ],
    [
      "App Service + dns without dnsZoneResourceGroup",
      variant("appServiceDns", {}, ["dnsZoneResourceGroup"]),
      "dnsZoneResourceGroup",
      /is required/,
    ],
    [
      "App Service with keyVaultName",
      variant("appServiceDns", { keyVaultName: "kv" }),
      "keyVaultName",
      /not allowed/,
    ],
    [
      "Key Vault with http",
      variant("keyVault", { challengeType: "http" }),
      "challengeType",
      /must be "dns"/,
    ],
    [
      "Key Vault without keyVaultName",
      variant("keyVault", {}, ["keyVaultName"]),
      "keyVaultName",
      /is required/,
    ],
    [
      "Key Vault without dnsZoneResourceGroup",
      variant("keyVault", {}, ["dnsZoneResourceGroup"]),
      "dnsZoneResourceGroup",
      /is required/,
    ],
    [
      "Key Vault with cloudAppServiceName",
      variant("keyVault", { cloudAppServiceName: "web" }),
      "cloudAppServiceName",
      /not allowed for target "Cloud Key Vault \+ DNS"/,
    ],
    [
      "Key Vault with an empty cloudAppServiceSlotName",
      variant("keyVault", { cloudAppServiceSlotName: "" }),
      "cloudAppServiceSlotName",
      /not allowed/,
    ],
    [
      "no slot but a sitename/slotname app name",
      variant("appServiceHttp", { cloudAppServiceName: "contoso-web/staging" }),
      "cloudAppServiceName",
      /must not contain "\/"/,
    ],
    [
      "a slot but a plain app name",
      variant("appServiceHttp", { cloudAppServiceSlotName: "staging" }),
      "cloudAppServiceName",
      /must be "sitename\/staging"/,
    ],
    [
      "a slot that differs from the name's",
      variant("appServiceSlot", { cloudAppServiceName: "contoso-web/blue" }),
      "cloudAppServiceName",
      /must be "sitename\/staging"/,
    ],
    [
      "a slot name with no site",
      variant("appServiceSlot", { cloudAppServiceName: "/staging" }),
      "cloudAppServiceName",
      /must be "sitename\/staging"/,
    ],
    [
      "no cloudAppServiceSlotName at all",
      variant("appServiceHttp", {}, ["cloudAppServiceSlotName"]),
      "cloudAppServiceSlotName",
      /is required/,
    ],
    [
      "a null slot name",
      variant("appServiceHttp", { cloudAppServiceSlotName: null }),
      "cloudAppServiceSlotName",
      /must be a string \(use "" for none\)/,
    ],
    [
      "accessToken sent by the caller",
      variant("appServiceHttp", { accessToken: "caller-token-value" }),
      "accessToken",
      /must not be sent: certsched obtains cloud access tokens itself/,
    ],
    [
      "accessTokenKeyVault sent by the caller",
      variant("keyVault", { accessTokenKeyVault: "caller-token-value" }),
      "accessTokenKeyVault",
      /certsched obtains cloud access tokens itself/,
    ],
    [
      "a string isSAN",
      variant("appServiceHttp", { isSAN: "false" }),
      "isSAN",
      /must be true or false/,
    ],
    ["no isSAN", variant("keyVault", {}, ["isSAN"]), "isSAN", /is required/],
    [
      "an invalid e-mail",
      variant("appServiceHttp", { email: "admin" }),
      "email",
      /must be an e-mail address/,
    ],
    ["an empty password", variant("keyVault", { password: "" }), "password", /must not be empty/],
    [
      "no certificateName",
      variant("appServiceDns", {}, ["certificateName"]),
      "certificateName",
      /is required/,
    ],
    [
      "a certificateName over 1024 characters",
      variant("appServiceHttp", { certificateName: "c".repeat(1025) }),
      "certificateName",
      /at most 1024/,
    ],
  ])("refuses %s, naming %s", (_, body, field, message) => {
    const issues = issuesOf(body);

    expect(issues.map((i) => i.name)).toContain(field);
    expect(issues.find((i) => i.name === field)?.message).toMatch(message);
  });

  it.each([
    "cloud app service",
    "Cloud App Service ",
    "Cloud Key Vault",
    "Cloud Key Vault+DNS",
    "Azure App Service",
    "",
  ])("refuses target %j: the service's spelling is exact", (target) => {
    expect(issuesOf(variant("appServiceHttp", { target }))).toEqual([
      { name: "target", message: 'must be "Cloud App Service" or "Cloud Key Vault + DNS"' },
    ]);
  });

  it.each(["HTTP", "Dns", "tls-alpn", ""])("refuses challengeType %j", (challengeType) => {
    expect(issuesOf(variant("appServiceHttp", { challengeType }))).toEqual([
      { name: "challengeType", message: 'must be "http" or "dns"' },
    ]);
  });

  it("names every problem at once", () => {
    const names = issuesOf(
      variant("appServiceHttp", { email: "nope", isSAN: 1, dnsZoneResourceGroup: "rg" }, [
        "rootDomain",
      ]),
    ).map((i) => i.name);

    expect(names.sort()).toEqual(["dnsZoneResourceGroup", "email", "isSAN", "rootDomain"]);
  });

  it("never quotes the values it refuses (the password, a token)", () => {
    const password = "pw-Sup3rS3cret-value";
    const token = "eyJhbGciOiJIUzI1NiJ9.caller-token.sig";
    watchSecret(password);
    watchSecret(token);

    issuesOf(
      variant("keyVault", { password, email: password, accessToken: token, isSAN: password }),
    );
    issuesOf(variant("appServiceHttp", { certificateName: 42, password: { value: password } }));
  });

  it("refuses a body that is not an object", () => {
    for (const body of [null, [], "text", 7]) {
      let thrown: unknown;
      try {
        parseOrThrow(createCertificateInput, body, "create request");
      } catch (error) {
        thrown = error;
        recordError(error);
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect((thrown as ValidationError).code).toBe("VALIDATION_FAILED");
    }
  });
});

describe("certificate record (spec 2.3)", () => {
  const wire = {
    certificateName: "www-contoso-com",
    rootDomain: "contoso.com",
    email: null,
    challengeType: "http",
    orderUri: null,
    csrInfo: null,
    issueDate: "2026-09-02T10:00:00.0000000",
    expiryDate: "2026-12-01T10:00:00.1234567",
    target: "Cloud App Service",
    renewal: "Automatic",
    id: 17,
    subscriptionId: 1001,
    password: null,
    pfxString: null,
    certificateDownloadUrl: null,
    cloudSubscriptionId: null,
    dnsZoneResourceGroup: null,
    keyVaultName: null,
    keyVaultCertificateName: null,
    siteId: 0,
  };

  // Only the fields certsched uses are interpreted (expiryDate as a UTC instant);
  // every other field is kept as sent (test/shared/core/certificate/records.vendorAlignment.test.ts).
  it("reads a list record with nulls and siteId 0, the expiry as a UTC instant", () => {
    expect(certificateRecord.parse(wire)).toEqual({
      ...wire,
      expiryDate: new Date("2026-12-01T10:00:00.123Z"),
    });
  });

  it("keeps fields the spec does not list, as sent", () => {
    const parsed = certificateRecord.parse({ ...wire, thumbprint: "AB12", tags: { a: 1 } });

    expect(parsed.thumbprint).toBe("AB12");
    expect(parsed.tags).toEqual({ a: 1 });
    expect(parsed.certificateName).toBe("www-contoso-com");
  });

  it("fills absent used fields with null and keeps a null siteId (the view shows 0)", () => {
    const parsed = certificateRecord.parse({
      certificateName: "kv",
      issueDate: wire.issueDate,
      expiryDate: wire.expiryDate,
      target: "Cloud Key Vault + DNS",
      renewal: "Automatic",
      id: 1,
      subscriptionId: 2,
      siteId: null,
      csrInfo: { commonName: "kv.contoso.com" },
    });

    expect(parsed.rootDomain).toBeNull();
    expect(parsed.keyVaultName).toBeNull();
    expect(parsed.siteId).toBeNull();
    expect(parsed.csrInfo).toEqual({ commonName: "kv.contoso.com" });
  });

  it.each<[string, Body]>([
    ["a date with a space", { expiryDate: "2026-12-01 10:00:00" }],
    ["an impossible date", { expiryDate: "2026-02-30T10:00:00.0000000" }],
    ["a string id", { id: "17" }],
    ["a fractional subscriptionId", { subscriptionId: 1.5 }],
    ["an empty certificateName", { certificateName: "" }],
  ])("refuses %s", (_, patch) => {
    expect(certificateRecord.safeParse({ ...wire, ...patch }).success).toBe(false);
  });

  it("takes a certificateName up to what a storage property holds, and names the rule past it", () => {
    const longest = "証".repeat(MAX_CERTIFICATE_NAME_CHARS);
    expect(certificateRecord.parse({ ...wire, certificateName: longest }).certificateName).toBe(
      longest,
    );
    const refused = certificateRecord.safeParse({ ...wire, certificateName: `${longest}x` });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({
        path: ["certificateName"],
        message: `must be at most ${MAX_CERTIFICATE_NAME_CHARS} characters (what a storage property holds)`,
      }),
    ]);
  });

  it("reads a list", () => {
    expect(certificateList.parse([wire, { ...wire, id: 18 }]).map((c) => c.id)).toEqual([17, 18]);
  });
});

describe("token response (spec 2.5): every field a string", () => {
  const wire = {
    token_type: "Bearer",
    expires_in: "3599",
    ext_expires_in: "3599",
    expires_on: "1796112000",
    not_before: "1796108401",
    resource: "https://management.core.windows.net/",
    access_token: "token-value",
  };

  it("parses the numeric strings", () => {
    expect(tokenResponse.parse(wire)).toEqual({
      ...wire,
      expires_in: 3599,
      ext_expires_in: 3599,
      expires_on: 1796112000,
      not_before: 1796108401,
    });
  });

  it.each<[string, Body]>([
    ["expires_on not digits", { expires_on: "tomorrow" }],
    ["expires_on missing", { expires_on: undefined }],
    ["an empty access_token", { access_token: "" }],
    ["a negative expires_in", { expires_in: "-1" }],
  ])("refuses %s", (_, patch) => {
    expect(tokenResponse.safeParse({ ...wire, ...patch }).success).toBe(false);
  });

  it("does not need the optional fields", () => {
    const { ext_expires_in: _e, not_before: _n, ...minimal } = wire;

    expect(tokenResponse.parse(minimal).expires_on).toBe(1796112000);
  });
});

describe("problem texts", () => {
  it("keep the values out of every text a person reads", () => {
    const error = (() => {
      try {
        parseOrThrow(
          createCertificateInput,
          variant("appServiceHttp", { accessToken: "tok-abcdef-123456", email: "x" }),
          "create request",
        );
      } catch (e) {
        return e;
      }
    })();

    expect(textsOf(error).join("\n")).not.toContain("tok-abcdef-123456");
  });
});

describe("secrets", () => {
  it("appear in none of the errors this file provoked", () => {
    expectNoSecretLeaks(20);
  });
});
