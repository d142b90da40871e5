import { describe, expect, it } from "vitest";
import { confirmEvent } from "../../../../shared/core/vaultEvents/confirm.js";
import {
  failedRead,
  SAMPLE_VERSION,
  sampleEvent,
  vaultRead,
  vaultVersion,
} from "../../../support/vaultEvents.js";

/**
 * The vault's word on an event (confirm.ts): a version it does not hold is skipped, a failed
 * read is unreadable (a redelivery may do), and a new version older than the current one is a
 * late delivery; near-expiry and expired are never skipped as older.
 */

const AT = (iso: string) => new Date(iso);
const NEWER = "a1b2c3d4e5f60718293a4b5c6d7e8f90";
const named = vaultRead({ createdOn: AT("2026-11-30T10:00:00Z") });
const event = sampleEvent();

describe("confirmEvent", () => {
  it("confirmed: the named version is the current one", () => {
    expect(confirmEvent(event, named, named)).toEqual({
      kind: "confirmed",
      version: { ...vaultVersion({ createdOn: AT("2026-11-30T10:00:00Z") }) },
      current: vaultVersion({ createdOn: AT("2026-11-30T10:00:00Z") }),
    });
  });

  it("no-such-version: the vault does not hold it", () => {
    expect(confirmEvent(event, failedRead("not-found"), named)).toEqual({
      kind: "skip",
      reason: "no-such-version",
      detail: `the vault holds no version ${SAMPLE_VERSION} of kv-contoso/www-contoso-example`,
    });
  });

  it("unreadable: either read failing otherwise, with the read's detail escaped", () => {
    expect(confirmEvent(event, failedRead("forbidden", "403\nforged"), named)).toEqual({
      kind: "unreadable",
      detail: `reading version ${SAMPLE_VERSION}: 403\\u{0a}forged`,
    });
    expect(confirmEvent(event, named, failedRead("timeout"))).toEqual({
      kind: "unreadable",
      detail: "reading the current version: the vault read failed: timeout",
    });
    // The current version gone while the named one reads: unreadable too, not no-such-version.
    expect(confirmEvent(event, named, failedRead("not-found")).kind).toBe("unreadable");
  });

  it("unreadable: the vault answered another version than the one asked for", () => {
    const other = vaultRead({ version: NEWER });
    expect(confirmEvent(event, other, other)).toMatchObject({
      kind: "unreadable",
      detail: `asked for version ${SAMPLE_VERSION}, the vault answered version ${NEWER}`,
    });
  });

  it("older-version: a new version created before the current one (created, else notBefore)", () => {
    const current = vaultRead({ version: NEWER, createdOn: AT("2026-11-30T10:00:01Z") });
    expect(confirmEvent(event, named, current)).toEqual({
      kind: "skip",
      reason: "older-version",
      detail: `version ${SAMPLE_VERSION} is older than the vault's current version ${NEWER}, created 2026-11-30T10:00:01Z`,
    });
    const byNotBefore = vaultRead({
      version: NEWER,
      createdOn: undefined,
      notBefore: AT("2026-12-01T00:00:00Z"),
    });
    expect(confirmEvent(event, named, byNotBefore)).toMatchObject({ reason: "older-version" });
  });

  it("not older: created at the same instant, or after the current one", () => {
    const same = vaultRead({ version: NEWER, createdOn: AT("2026-11-30T10:00:00Z") });
    expect(confirmEvent(event, named, same).kind).toBe("confirmed");
    const before = vaultRead({ version: NEWER, createdOn: AT("2026-11-30T09:59:59Z") });
    expect(confirmEvent(event, named, before).kind).toBe("confirmed");
  });

  it("versions compare without case; without versions, thumbprints decide", () => {
    const upper = vaultRead({
      version: SAMPLE_VERSION.toUpperCase(),
      createdOn: AT("2026-12-01T00:00:00Z"),
    });
    expect(confirmEvent(event, named, upper).kind).toBe("confirmed");
    const unnamed = vaultRead({ version: undefined, createdOn: AT("2026-11-29T00:00:00Z") });
    const same = { ...unnamed, createdOn: AT("2026-12-01T00:00:00Z") };
    expect(confirmEvent(event, unnamed, same).kind).toBe("confirmed");
  });

  it("near-expiry and expired are never skipped as older", () => {
    const current = vaultRead({ version: NEWER, createdOn: AT("2026-12-01T00:00:00Z") });
    for (const kind of ["near-expiry", "expired"] as const) {
      const confirmed = confirmEvent(sampleEvent({ kind }), named, current);
      expect(confirmed).toMatchObject({ kind: "confirmed", current: { version: NEWER } });
    }
  });
});
