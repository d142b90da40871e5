import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daysLeft, parseServiceDate } from "../../../../shared/core/certificate/dates.js";
import { certificateRecord } from "../../../../shared/core/certificate/records.js";
import { formatServiceDate } from "../../../../sim/index.js";

const run = promisify(execFile);

describe("parseServiceDate", () => {
  it.each([
    ["2026-12-01T10:00:00.1234567", "2026-12-01T10:00:00.123Z"],
    ["2026-12-01T10:00:00.9999999", "2026-12-01T10:00:00.999Z"],
    ["2026-12-01T10:00:00.5", "2026-12-01T10:00:00.500Z"],
    ["2026-12-01T10:00:00", "2026-12-01T10:00:00.000Z"],
    ["2025-12-31T23:59:59.9999999", "2025-12-31T23:59:59.999Z"],
    ["2028-02-29T00:00:00.0000000", "2028-02-29T00:00:00.000Z"],
    ["2026-12-01T10:00:00Z", "2026-12-01T10:00:00.000Z"],
    ["2026-12-01T10:00:00.1230000+05:30", "2026-12-01T04:30:00.123Z"],
    // Regression: a zone offset that moves the instant across midnight was refused.
    ["2026-12-01T00:30:00+02:00", "2026-11-30T22:30:00.000Z"],
    ["2026-12-31T23:30:00-02:00", "2027-01-01T01:30:00.000Z"],
  ])("reads %s as %s whatever the machine's zone", (text, iso) => {
    expect(parseServiceDate(text)?.toISOString()).toBe(iso);
  });

  it.each([
    "",
    "2026-12-01",
    "2026-12-01 10:00:00",
    "2026-12-01T10:00",
    "01/12/2026 10:00:00",
    "2026-02-31T10:00:00",
    "2027-02-29T10:00:00",
    "2026-13-01T10:00:00",
    "2026-12-01T24:00:00",
    // Regression: Date.UTC rolls these over silently (10:60 became 11:00).
    "2026-12-01T10:60:00",
    "2026-12-01T10:00:60",
    "2026-12-01T10:00:00.",
    "2026-12-01T10:00:00.1234567890",
    "2026-12-01T10:00:00+0200",
    " 2026-12-01T10:00:00",
  ])("refuses %j", (text) => {
    expect(parseServiceDate(text)).toBeUndefined();
  });

  it("reads back what the simulator writes, to the millisecond", () => {
    const instant = new Date("2026-03-29T01:30:45.678Z");

    expect(formatServiceDate(instant)).toBe("2026-03-29T01:30:45.6780000");
    expect(parseServiceDate(formatServiceDate(instant))).toEqual(instant);
  });
});

describe("daysLeft", () => {
  const now = new Date("2026-12-01T10:00:00Z");
  it.each([
    ["2026-12-21T10:00:00Z", 20],
    ["2026-12-21T09:59:59.999Z", 19],
    ["2026-12-01T10:00:00Z", 0],
    ["2026-12-01T09:59:59Z", -1],
    ["2026-11-29T10:00:00Z", -2],
  ])("counts whole days until %s: %i", (expiry, days) => {
    expect(daysLeft(new Date(expiry), now)).toBe(days);
  });
});

/*
 * TZ is read once when Node starts, so each zone needs its own process. esbuild bundles the real
 * modules (dates, the record schema with zod, the simulator's formatter) into one .mjs that a
 * plain `node` child runs; the child prints what it parsed.
 */
const PROBE = `
import { parseServiceDate, daysLeft } from "./shared/core/certificate/dates.ts";
import { certificateRecord } from "./shared/core/certificate/records.ts";
import { certificateView } from "./shared/core/certificate/certificateView.ts";
import { formatServiceDate } from "./sim/format.ts";

const inputs = ${JSON.stringify([
  "2026-12-01T10:00:00.1234567",
  "2026-01-01T00:00:00.0000000",
  "2025-12-31T23:59:59.9999999",
  "2026-03-29T01:30:00.0000000",
  "2026-11-01T01:30:00.0000000",
  "2026-12-01T00:30:00+02:00",
])};
const record = certificateRecord.parse({
  certificateName: "www-contoso-com", rootDomain: null, email: null, challengeType: "http",
  orderUri: null, csrInfo: null, issueDate: "2026-09-02T23:30:00.0000000",
  expiryDate: "2026-12-01T00:15:00.1000000", target: "Cloud App Service", renewal: "Automatic",
  id: 7, subscriptionId: 1001, password: null, pfxString: null, certificateDownloadUrl: null,
  cloudSubscriptionId: null, dnsZoneResourceGroup: null, keyVaultName: null,
  keyVaultCertificateName: null, siteId: 0,
});
const now = new Date(Date.UTC(2026, 10, 30, 23, 0, 0));
process.stdout.write(JSON.stringify({
  zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  parsed: inputs.map((text) => parseServiceDate(text)?.toISOString() ?? null),
  // issueDate is not a field certsched uses: the record keeps it as sent, the view reads it.
  record: { issueDate: certificateView(record, now).issueDate, expiryDate: record.expiryDate.toISOString() },
  daysLeft: daysLeft(record.expiryDate, now),
  formatted: formatServiceDate(record.expiryDate),
  naive: new Date("2026-12-01T10:00:00").toISOString(),
}));
`;

interface ProbeOutput {
  zone: string;
  parsed: (string | null)[];
  record: { issueDate: string; expiryDate: string };
  daysLeft: number;
  formatted: string;
  naive: string;
}

const ZONES = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"] as const;

describe("dates under the machine's time zone", () => {
  let dir: string;
  const outputs = new Map<string, ProbeOutput>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "certsched-tz-"));
    const bundle = await build({
      stdin: {
        contents: PROBE,
        resolveDir: resolve(import.meta.dirname, "../../../.."),
        loader: "ts",
      },
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      write: false,
      logLevel: "silent",
    });
    const script = join(dir, "probe.mjs");
    await writeFile(script, bundle.outputFiles[0]?.text ?? "");
    await Promise.all(
      ZONES.map(async (zone) => {
        const { stdout } = await run(process.execPath, [script], {
          env: { ...process.env, TZ: zone },
        });
        outputs.set(zone, JSON.parse(stdout) as ProbeOutput);
      }),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("really ran each child in its zone (a naive Date differs across them)", () => {
    expect(ZONES.map((zone) => outputs.get(zone)?.zone)).toEqual([...ZONES]);
    expect(ZONES.map((zone) => outputs.get(zone)?.naive)).toEqual([
      "2026-12-01T10:00:00.000Z",
      "2026-11-30T20:00:00.000Z",
      "2026-12-01T21:00:00.000Z",
    ]);
  });

  it.each(ZONES)("%s: service dates and certificate records are the same UTC instants", (zone) => {
    expect(outputs.get(zone)).toEqual({
      zone,
      parsed: [
        "2026-12-01T10:00:00.123Z",
        "2026-01-01T00:00:00.000Z",
        "2025-12-31T23:59:59.999Z",
        "2026-03-29T01:30:00.000Z",
        "2026-11-01T01:30:00.000Z",
        "2026-11-30T22:30:00.000Z",
      ],
      record: { issueDate: "2026-09-02T23:30:00.000Z", expiryDate: "2026-12-01T00:15:00.100Z" },
      daysLeft: 0,
      formatted: "2026-12-01T00:15:00.1000000",
      naive: expect.any(String),
    });
  });

  it("agrees with this process (whatever its zone)", () => {
    const record = certificateRecord.parse({
      certificateName: "x",
      issueDate: "2026-09-02T23:30:00.0000000",
      expiryDate: "2026-12-01T00:15:00.1000000",
      target: "Cloud App Service",
      renewal: "Automatic",
      id: 1,
      subscriptionId: 1,
    });

    expect(record.expiryDate.toISOString()).toBe(outputs.get("UTC")?.record.expiryDate);
  });
});
