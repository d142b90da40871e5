import { DAY_MS } from "../../lib/time.js";
import { APP_SERVICE, KEY_VAULT } from "../certificate/fields.js";
import type { CertificateRecord } from "../certificate/records.js";
import { WATCH_PREFIX } from "../inventory/watch.js";
import type { InventoryRecord } from "../ports/inventory.js";
import type { SiteRef } from "../ports/preflightProbes.js";
import { DUE_WINDOW_MS } from "../quota/renewalNeed.js";
import type { PreflightCheckName } from "./preflight.js";

/**
 * What the checks know of one certificate (from the inventory, or the due list's record). Every
 * field but the names may be missing: a check that needs one reports `unknown`, naming it.
 */
export interface CheckSubject {
  readonly certificateName: string;
  /** Lower case, without a trailing dot; a wildcard keeps its `*.`. */
  readonly rootDomain: string;
  /** `http` or `dns` as the service said it (compare case-insensitively). */
  readonly challengeType?: string | undefined;
  /** `Cloud App Service` or `Cloud Key Vault + DNS` as the service said it. */
  readonly target?: string | undefined;
  readonly cloudSubscriptionId?: string | undefined;
  readonly dnsZoneResourceGroup?: string | undefined;
  /** The app from the create request; undefined when certsched does not know it (due list). */
  readonly site?: SiteRef | undefined;
}

/** A certificate preflight looks at: its subject, and its expiry when known (for the alert). */
export interface PreflightCandidate {
  readonly certificateName: string;
  /** Undefined when the record names no rootDomain: nothing can be checked. */
  readonly subject: CheckSubject | undefined;
  readonly expiry?: Date | undefined;
}

/** `Contoso.com.` → `contoso.com`; undefined for a blank value. */
export function normalDomain(domain: string | null | undefined): string | undefined {
  const text = domain?.trim().toLowerCase().replace(/\.+$/, "");
  return text ? text : undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/** An inventory row as preflight sees it; undefined for a watched endpoint (not the service's). */
export function fromInventory(record: InventoryRecord): PreflightCandidate | undefined {
  if (record.certificateName.startsWith(WATCH_PREFIX)) return undefined;
  const rootDomain = normalDomain(record.rootDomain);
  const site =
    record.cloudSubscriptionId && record.appServiceResourceGroup && record.appServiceName
      ? {
          subscriptionId: record.cloudSubscriptionId,
          resourceGroup: record.appServiceResourceGroup,
          site: record.appServiceName,
          ...(record.appServiceSlot ? { slot: record.appServiceSlot } : {}),
        }
      : undefined;
  return {
    certificateName: record.certificateName,
    expiry: record.serviceExpiry,
    subject:
      rootDomain === undefined
        ? undefined
        : {
            certificateName: record.certificateName,
            rootDomain,
            challengeType: text(record.challengeType),
            target: text(record.target),
            cloudSubscriptionId: text(record.cloudSubscriptionId),
            dnsZoneResourceGroup: text(record.dnsZoneResourceGroup),
            site,
          },
  };
}

/** A due list's record as preflight sees it: the list names no app (no site). */
export function fromDueRecord(record: CertificateRecord): PreflightCandidate {
  const rootDomain = normalDomain(record.rootDomain);
  return {
    certificateName: record.certificateName,
    expiry: record.expiryDate,
    subject:
      rootDomain === undefined
        ? undefined
        : {
            certificateName: record.certificateName,
            rootDomain,
            challengeType: text(record.challengeType),
            target: text(record.target),
            cloudSubscriptionId: text(record.cloudSubscriptionId),
            dnsZoneResourceGroup: text(record.dnsZoneResourceGroup),
          },
  };
}

/**
 * The timer's selection: within `days` of entering the service's 20-day renewal window, or in it
 * (expired included). A certificate whose expiry certsched does not know yet (created, never
 * listed) is checked too: it may be closer than anyone thinks.
 */
export function inPreflightWindow(expiry: Date | undefined, now: Date, days: number): boolean {
  if (expiry === undefined) return true;
  return expiry.getTime() - now.getTime() <= DUE_WINDOW_MS + days * DAY_MS;
}

const is = (value: string | undefined, expected: string) =>
  value !== undefined && value.toLowerCase() === expected.toLowerCase();

/**
 * The checks that apply to a certificate (the contract's "runs for" column), before any runs:
 * `dns-delegation` applies only once `dns-zone` found the zone, which the use case decides.
 */
export function applicableChecks(subject: CheckSubject): PreflightCheckName[] {
  const dnsZone = is(subject.challengeType, "dns") || is(subject.target, KEY_VAULT);
  return [
    "caa",
    ...(dnsZone ? (["dns-zone"] as const) : []),
    ...(is(subject.target, APP_SERVICE) ? (["app-binding"] as const) : []),
    ...(is(subject.challengeType, "http") ? (["http-challenge"] as const) : []),
    "access",
  ];
}
