import { describe, expect, it } from "vitest";
import type {
  DashboardModel,
  DashboardRow,
} from "../../../../shared/core/dashboard/dashboardModel.js";
import { STATUS_WORDS } from "../../../../shared/core/status/certificateStatus.js";
import type { WindowView } from "../../../../shared/core/status/windowView.js";
import { renderDashboard } from "../../../../shared/edge/dashboard/renderDashboard.js";
import { windowHtml } from "../../../../shared/edge/dashboard/windowCell.js";

/*
 * The renewal calendar's word under a dashboard row's status: the words every surface uses, and
 * the labels and reasons of the declaration escaped like every other text from elsewhere.
 */

const HOSTILE = '<script>alert("x")</script>&';
const WAITING: WindowView = {
  state: "waiting",
  text: "waiting: opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
  window: "CERTSCHED_RENEWAL_WINDOWS[0]",
  opensAt: "2026-12-08T08:00:00.000Z",
  opens: "2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
};

describe("windowHtml", () => {
  it("nothing without a calendar, or for a certificate none of it applies to", () => {
    expect(windowHtml(undefined)).toBe("");
    expect(windowHtml(null)).toBe("");
  });

  it.each<[WindowView, string]>([
    [WAITING, "waiting for window (opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC))"],
    [
      { state: "disabled", text: "disabled (policy CERTSCHED_CERTIFICATE_POLICY[0])" },
      "disabled (policy CERTSCHED_CERTIFICATE_POLICY[0])",
    ],
    [
      { state: "open", text: "open until 2026-12-08 16:00 Europe/Berlin (2026-12-08 15:00 UTC)" },
      "window open until 2026-12-08 16:00 Europe/Berlin (2026-12-08 15:00 UTC)",
    ],
  ])("%o reads %s", (window, words) => {
    expect(windowHtml(window)).toBe(
      `<span class="sub window window-${window.state}">${words}</span>`,
    );
  });

  it("escapes a freeze's reason and a policy's label from the declaration", () => {
    const frozen = windowHtml({ ...WAITING, frozen: { reason: HOSTILE, until: "2027-01-06" } });
    const disabled = windowHtml({ state: "disabled", text: `disabled (policy ${HOSTILE})` });

    for (const html of [frozen, disabled]) {
      expect(html).not.toContain("<script>");
      expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;");
    }
    expect(frozen).toContain("waiting for window (frozen: &lt;script&gt;");
  });
});

describe("the dashboard's rows", () => {
  const row = (name: string, window?: WindowView | null): DashboardRow & { window?: unknown } => ({
    name,
    domain: null,
    target: null,
    status: "ok",
    critical: false,
    why: "30 days left",
    serviceExpiry: "2027-01-01T00:00:00.000Z",
    servedExpiry: null,
    serviceDaysLeft: 30,
    servedDaysLeft: null,
    daysLeft: 30,
    lastRenewal: null,
    lastVerification: null,
    preflight: null,
    history: { path: `certificates/${name}` },
    ...(window === undefined ? {} : { window }),
  });

  it("shows the window under the status, and nothing for a row without one", () => {
    const model: DashboardModel = {
      generatedAt: "2026-12-07T10:00:00.000Z",
      rows: [
        row("waits", WAITING),
        row("legacy", { state: "disabled", text: `disabled (policy ${HOSTILE})` }),
        row("plain"),
      ],
      counts: Object.fromEntries(STATUS_WORDS.map((w) => [w, 0])) as DashboardModel["counts"],
      lastRun: undefined,
      nextRun: { kind: "unset" },
      requestsLastWeek: 0,
      problems: [],
    };

    const html = renderDashboard(model, { warnDays: 14 });

    expect(html).toContain(
      "waiting for window (opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC))",
    );
    expect(html).toContain('<span class="sub window window-disabled">disabled (policy &lt;');
    expect(html).not.toContain("<script>alert");
    expect(html.match(/class="sub window /g)).toHaveLength(2);
  });
});
