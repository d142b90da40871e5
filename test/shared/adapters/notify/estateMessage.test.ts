import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { estateBody, MAX_ESTATE_LINES } from "../../../../shared/adapters/notify/estateMessage.js";
import { createNotifier } from "../../../../shared/adapters/notify/notifier.js";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import type { EstateAlert } from "../../../../shared/core/estate/estateAlert.js";
import type { EstateEntry } from "../../../../shared/core/estate/report.js";
import type { Notifier } from "../../../../shared/core/ports/notifier.js";
import { collectingLogger } from "../../../support/app.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

/** The estate's webhook message in each format, and the notifier posting it over a real socket. */

const AT = new Date("2026-12-02T05:40:00Z");
const DAY = 86_400_000;

function entry(name: string, days = 9): EstateEntry {
  const certificate: EstateCertificate = {
    id: `/subscriptions/s/x/${name}`,
    kind: "application-gateway",
    name,
    subscriptionId: "00000000-0000-4000-8000-0000000e57a7",
    resourceGroup: "rg-network",
    expiresAt: new Date(AT.getTime() + days * DAY),
    hostNames: ["portal.contoso.com"],
    moreHostNames: 0,
    boundTo: [
      { kind: "listener", resourceId: "/x/listeners/https-portal", hostName: "portal.contoso.com" },
    ],
    problems: [],
  };
  return { certificate, gaps: ["unmanaged-expiring"] };
}

const alert = (entries: EstateEntry[]): EstateAlert => ({
  account: "contoso",
  entries,
  expiringDays: 30,
  at: AT,
});

describe("the estate's message", () => {
  it("json: the certificates entering the set, each with where it is bound and its expiry", () => {
    const json = JSON.parse(estateBody(alert([entry("portal-contoso-com")]), "json", true));
    expect(json).toMatchObject({
      source: "certsched",
      event: "estate-alert",
      account: "contoso",
      expiringDays: 30,
      certificates: [
        {
          name: "portal-contoso-com",
          kind: "application-gateway",
          expiresAt: "2026-12-11T05:40:00.000Z",
          boundTo: ["portal.contoso.com"],
        },
      ],
      more: 0,
      title: "certsched: 1 unmanaged certificate expiring within 30 days of account contoso",
    });
    expect(json.text).toContain('unmanaged certificate "portal-contoso-com" (application-gateway)');
  });

  it("shows at most MAX_ESTATE_LINES, counting the rest; a name's control characters are escaped", () => {
    const many = Array.from({ length: MAX_ESTATE_LINES + 3 }, (_, i) => entry(`c${i}`));
    many[0] = entry("evil\u001b[2J<script>");
    const json = JSON.parse(estateBody(alert(many), "json"));
    expect(json.certificates).toHaveLength(MAX_ESTATE_LINES);
    expect(json.more).toBe(3);
    expect(json.text).toContain("and 3 more (certsched estate)");
    expect(json.certificates[0].name).toBe("evil\\u{1b}[2J<script>");
    for (const format of ["teams", "slack"] as const) {
      const body = estateBody(alert(many), format);
      expect(body).not.toContain("\u001b");
      expect(body).toMatch(/and \d+ more/);
    }
  });
});

describe("notifyEstate to a webhook", () => {
  let receiver: Receiver;
  let notifier: Notifier | undefined;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await notifier?.close();
    await receiver.close();
  });

  it("posts one message whatever CERTSCHED_NOTIFY_SUCCESS says; nothing when nothing entered", async () => {
    notifier = createNotifier({
      url: `${receiver.baseUrl}/hook`,
      format: "json",
      notifySuccess: false,
      timeoutMs: 2_000,
    });
    const { log } = collectingLogger();
    expect(await notifier.notifyEstate(alert([entry("a"), entry("b")]), log)).toBe("sent");
    expect(await notifier.notifyEstate(alert([]), log)).toBe("not-needed");
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]?.body ?? "{}").certificates).toHaveLength(2);
  });
});
