import { describe, expect, it } from "vitest";
import { readVaultEvents } from "../../../../shared/core/vaultEvents/readEvents.js";
import { eventKey, VAULT_EVENT_TYPES } from "../../../../shared/core/vaultEvents/vaultEvent.js";
import { eventGridEvent, SAMPLE_VERSION, sampleEvent } from "../../../support/vaultEvents.js";

/** An event's key (vaultEvent.ts): one per version and kind, whatever the case or the delivery. */

describe("eventKey", () => {
  it("is the vault, certificate, version and kind, lower-case", () => {
    const event = sampleEvent({
      certificateName: "WWW-Contoso",
      version: SAMPLE_VERSION.toUpperCase(),
    });
    expect(eventKey(event)).toBe(`kv-contoso/www-contoso/${SAMPLE_VERSION}/new-version`);
  });

  it("two deliveries of one event, or of its other schema, share it; another kind does not", () => {
    const keys = [
      eventGridEvent({ id: "first" }),
      eventGridEvent({ id: "redelivered", vaultName: "KV-CONTOSO" }),
      eventGridEvent({ kind: "near-expiry" }),
    ].map((e) => {
      const [read] = readVaultEvents(e).events;
      return read?.kind === "event" ? eventKey(read.event) : "";
    });
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it("the three Key Vault certificate event types", () => {
    expect(Object.values(VAULT_EVENT_TYPES)).toEqual([
      "Microsoft.KeyVault.CertificateNewVersionCreated",
      "Microsoft.KeyVault.CertificateNearExpiry",
      "Microsoft.KeyVault.CertificateExpired",
    ]);
  });
});
