import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { ACCOUNT_FIELDS, settingsOf } from "../../../shared/core/accounts.js";
import type { AccountSettings } from "../../../shared/core/settings.js";
import { OPEN_CALENDAR } from "../../../shared/core/windows/calendar.js";

const app = loadSettings({
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "sub-app",
  CERTSCHED_TENANT_ID: "tenant-app",
  CERTSCHED_CLIENT_ID: "client-app",
  CERTSCHED_CLIENT_SECRET: "client-secret-of-the-app-1",
  CERTSCHED_RENEWAL_CONCURRENCY: "3",
});

describe("settingsOf", () => {
  it("puts every field of the account over the app's, and keeps the app's own settings", () => {
    const other: AccountSettings = {
      name: "other",
      baseUrl: "https://other.example",
      publicBaseUrl: "https://other.example/pub",
      subscription: "sub-other",
      subscriptionId: "pub-other",
      apiKey: "api-key-of-other-account-1",
      apiKeySecretName: "other-key",
      tenantId: undefined,
      clientId: undefined,
      clientSecret: undefined,
      clientSecretSecretName: "other-secret",
      cloudCredential: "managed-identity",
      managedIdentityClientId: "mi-client",
      tokenUrl: "https://login.other.example",
      managementResource: "https://management.other/",
      vaultResource: "https://vault.other",
      serviceQuota: undefined,
      renewalCalendar: {
        ...OPEN_CALENDAR,
        policies: [{ label: "P[0]", certificates: ["legacy-*"], policy: "disabled" }],
      },
    };
    const view = settingsOf(app, other);
    expect(view.account).toBe("other");
    for (const field of ACCOUNT_FIELDS) expect(view[field]).toEqual(other[field]);
    // Nothing of the app's account survives: not its secret, not its tenant.
    expect(view.clientSecret).toBeUndefined();
    // Nor its calendar: the account's own windows, freezes and policy hold for it.
    expect(view.renewalCalendar).toBe(other.renewalCalendar);
    expect(app.renewalCalendar).toEqual(OPEN_CALENDAR);
    expect(view.tenantId).toBeUndefined();
    expect(view.renewalConcurrency).toBe(3);
    expect(view.accounts).toBe(app.accounts);
    expect(app.account).toBe("default");
  });
});

describe("declared accounts' calendars", () => {
  it("each account runs with its own windows, freezes and policy, not the first account's", () => {
    const account = (name: string, extra: object) => ({
      name,
      baseUrl: `https://${name}.example`,
      subscription: `sub-${name}`,
      apiKey: `api-key-of-${name}-account-1`,
      identity: "managed",
      ...extra,
    });
    const settings = loadSettings({
      CERTSCHED_ACCOUNTS: JSON.stringify([
        account("a", {}),
        account("b", {
          windows: [{ start: "0 9 * * 2-4", duration: "7h", timeZone: "Europe/Berlin" }],
          certificatePolicy: [{ certificates: ["old"], policy: "disabled" }],
        }),
      ]),
    });
    const [a, b] = settings.accounts;
    if (!a || !b) throw new Error("two accounts expected");
    expect(settingsOf(settings, a).renewalCalendar.windows).toEqual([]);
    const own = settingsOf(settings, b).renewalCalendar;
    expect(own.windows.map((w) => w.start)).toEqual(["0 9 * * 2-4"]);
    expect(own.policies.map((p) => p.policy)).toEqual(["disabled"]);
  });
});
