import { describe, expect, it } from "vitest";
import { shortCause, urlTried, type Where, whereToLook } from "../../../cli/output/cause.js";

const WHERE: Where = {
  baseUrl: "https://certs.example.com",
  publicBaseUrl: "https://certs.example.com/public",
  subscription: "portal sub",
  subscriptionId: "1001",
  tokenUrl: "https://login.example.com",
  tenantId: "contoso",
  clientId: "certsched-app",
  keyVaultUrl: undefined,
  cloudCredential: "client-secret",
};

describe("shortCause", () => {
  it.each([
    [
      "renew certificate failed: the service answered 400: Renewal refused: quota exceeded",
      "400: Renewal refused: quota exceeded",
    ],
    [
      "renew certificate (v3) failed: the service answered 401 (the service refused certsched's credentials): Unauthorized: invalid API key",
      "401: Unauthorized: invalid API key",
    ],
    [
      "list certificates due for renewal failed: the service answered 401 (the service refused certsched's credentials)",
      "401: the service refused certsched's credentials",
    ],
    ["renew certificate failed: the service answered 503", "503"],
    [
      "publicRenew: cannot reach the service (ECONNREFUSED)",
      "cannot reach the service (ECONNREFUSED)",
    ],
    ["renewal requested 12 min ago", "renewal requested 12 min ago"],
    // The words keep a colon of their own.
    ["renew certificate failed: the service answered 400: a: b: c", "400: a: b: c"],
  ])("%s -> %s", (detail, short) => {
    expect(shortCause(detail)).toBe(short);
  });
});

describe("whereToLook", () => {
  it.each([
    [
      { upstream: "test", code: "UPSTREAM_UNREACHABLE", status: undefined, text: "" },
      "Tried https://certs.example.com/public/v1/subscription/1001/public/certificate/test. Check CERTSCHED_BASE_URL (or CERTSCHED_PUBLIC_BASE_URL) and the network.",
    ],
    [
      { upstream: "renew", code: "UPSTREAM_TIMEOUT", status: undefined, text: "" },
      "Tried https://certs.example.com/prod/v3/ssl/certificate/subscription/portal%20sub/schedule/renew. Check CERTSCHED_BASE_URL and the network; CERTSCHED_HTTP_TIMEOUT sets the time allowed.",
    ],
    [
      { upstream: "create", code: "UPSTREAM_UNREACHABLE", status: undefined, text: "" },
      "Tried https://certs.example.com/prod/v3/ssl/certificate/subscription/portal%20sub/schedule/create. Check CERTSCHED_BASE_URL and the network.",
    ],
    [
      {
        upstream: "token",
        code: "TOKEN_UNAVAILABLE",
        status: undefined,
        text: "Identity provider unreachable",
      },
      "Tried https://login.example.com/contoso/oauth2/token. Check CERTSCHED_TOKEN_URL and the network.",
    ],
    [
      {
        upstream: "renew",
        code: "UPSTREAM_UNAUTHORIZED",
        status: 401,
        text: "Unauthorized: invalid API key",
      },
      "Check CERTSCHED_API_KEY: the service refused the API key.",
    ],
    [
      {
        upstream: "renew",
        code: "UPSTREAM_UNAUTHORIZED",
        status: 401,
        text: "Unauthorized: unknown subscription",
      },
      "Check CERTSCHED_SUBSCRIPTION: the service does not know that subscription value.",
    ],
    [
      {
        upstream: "list",
        code: "UPSTREAM_UNAUTHORIZED",
        status: 401,
        text: "Authorization failed: unknown subscription id",
      },
      "Check CERTSCHED_SUBSCRIPTION_ID: the service does not know that subscription id (it defaults to CERTSCHED_SUBSCRIPTION).",
    ],
    [
      {
        upstream: "publicRenew",
        code: "UPSTREAM_UNAUTHORIZED",
        status: 403,
        text: "token expired",
      },
      "The service refused the cloud access tokens: check CERTSCHED_TENANT_ID, CERTSCHED_CLIENT_ID and CERTSCHED_CLIENT_SECRET (the app registration and its role).",
    ],
    [
      { upstream: "publicRenew", code: "UPSTREAM_REJECTED", status: 400, text: "refused" },
      undefined,
    ],
  ] as const)("%o -> %s", (facts, hint) => {
    expect(whereToLook(facts, WHERE)).toBe(hint);
  });

  it("leaves the identity provider's refusal to its AADSTS words: not the service's credentials", () => {
    const facts = {
      upstream: "token",
      code: "TOKEN_REFUSED",
      status: 401,
      text: "AADSTS7000215",
    } as const;
    expect(whereToLook(facts, WHERE)).toBeUndefined();
  });

  it("names no token URL under managed identity (there is none to try)", () => {
    expect(urlTried("token", { ...WHERE, cloudCredential: "managed-identity" })).toBeUndefined();
  });
});

describe("whereToLook with declared accounts", () => {
  const ACCOUNT: Where = { ...WHERE, account: "contoso", accountsDeclared: true };

  it("names the account's own fields, never a single-account setting that is forbidden then", () => {
    const unreachable = whereToLook(
      { upstream: "list", code: "UPSTREAM_UNREACHABLE", status: undefined, text: "" },
      ACCOUNT,
    );
    expect(unreachable).toBe(
      "Tried https://certs.example.com/public/v1/subscription/1001/public/certificate/renew/getlist. Check account contoso's baseUrl (or account contoso's publicBaseUrl) and the network. (The accounts: CERTSCHED_ACCOUNTS or CERTSCHED_ACCOUNTS_FILE.)",
    );
    const subscription = whereToLook(
      {
        upstream: "list",
        code: "UPSTREAM_UNAUTHORIZED",
        status: 401,
        text: "unknown subscription id",
      },
      ACCOUNT,
    );
    expect(subscription).toContain("Check account contoso's subscriptionId:");
    expect(subscription).toContain("(it defaults to account contoso's subscription)");
    expect(subscription).not.toMatch(/CERTSCHED_SUBSCRIPTION/);
    const key = whereToLook(
      { upstream: "renew", code: "UPSTREAM_UNAUTHORIZED", status: 401, text: "" },
      { ...ACCOUNT, keyVaultUrl: "https://vault.example.com" },
    );
    expect(key).toContain("account contoso's apiKeySecret");
    expect(key).not.toMatch(/CERTSCHED_API_KEY/);
  });

  it("keeps the settings' names for the one account of a deployment without declared accounts", () => {
    const facts = {
      upstream: "list",
      code: "UPSTREAM_UNREACHABLE",
      status: undefined,
      text: "",
    } as const;
    expect(whereToLook(facts, { ...WHERE, account: "default", accountsDeclared: false })).toBe(
      whereToLook(facts, WHERE),
    );
  });
});
