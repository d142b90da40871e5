import { describe, expect, it } from "vitest";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { vaultAlertOf } from "../../../../shared/core/vaultEvents/vaultAlert.js";
import {
  SAMPLE_EXPIRY,
  SAMPLE_SUBSCRIPTION,
  SAMPLE_VERSION,
  sampleEvent,
  vaultVersion,
} from "../../../support/vaultEvents.js";

/** The alert an expiry verdict calls for (vaultAlert.ts). */

const event = sampleEvent({ kind: "near-expiry" });
const version = vaultVersion();

describe("vaultAlertOf", () => {
  it("at-risk and unmanaged make an alert with where the certificate lives", () => {
    const managed = {
      certificateName: "www",
      source: "due-list" as const,
      firstSeen: SAMPLE_EXPIRY,
      lastSeen: SAMPLE_EXPIRY,
      target: KEY_VAULT,
    };
    const certificate = {
      keyVaultName: "kv-contoso",
      nameInVault: "www-contoso-example",
      names: ["www"],
      managed,
    };
    const verdict = { kind: "at-risk" as const, detail: "its last renewal request failed" };
    expect(vaultAlertOf({ account: "contoso", event, version, verdict, certificate })).toEqual({
      account: "contoso",
      kind: "at-risk",
      event: "near-expiry",
      vaultName: "kv-contoso",
      certificateName: "www-contoso-example",
      version: SAMPLE_VERSION,
      subscriptionId: SAMPLE_SUBSCRIPTION,
      resourceGroup: "rg-certs",
      expiresAt: SAMPLE_EXPIRY,
      detail: "its last renewal request failed",
      managedName: "www",
    });
    const unmanaged = vaultAlertOf({ event, version, verdict: { kind: "unmanaged", detail: "d" } });
    expect(unmanaged).toMatchObject({ kind: "unmanaged" });
    expect(unmanaged).not.toHaveProperty("managedName");
    expect(unmanaged).not.toHaveProperty("account");
  });

  it("renewed and in-hand make none", () => {
    for (const kind of ["renewed", "in-hand"] as const) {
      expect(vaultAlertOf({ event, version, verdict: { kind, detail: "" } })).toBeUndefined();
    }
  });
});
