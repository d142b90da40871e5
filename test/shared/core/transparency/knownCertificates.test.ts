import { describe, expect, it } from "vitest";
import type { CertificateEvent, EventKind } from "../../../../shared/core/history/events.js";
import type {
  InventoryRecord,
  VerificationRecord,
} from "../../../../shared/core/ports/inventory.js";
import {
  knownCertificatesOf,
  sentRequestsOf,
} from "../../../../shared/core/transparency/knownCertificates.js";
import type { ServedFacts } from "../../../../shared/core/verification/served.js";

/** What certsched has read and sent, as Certificate Transparency issuances are matched against. */

const at = (iso: string) => new Date(iso);
const hash = (c: string) => c.repeat(64);
const facts = (pubkey: string, tbs?: string): ServedFacts => ({
  thumbprint: "AB".repeat(32),
  pubkeySha256: hash(pubkey),
  ...(tbs === undefined ? {} : { tbsSha256: hash(tbs) }),
});
const reading = (fields: Partial<VerificationRecord>): VerificationRecord => ({
  at: at("2026-11-10T00:00:00Z"),
  status: "ok",
  source: "tls",
  domain: "www.contoso.com",
  detail: "ok",
  ...fields,
});
const record = (
  certificateName: string,
  fields: Partial<InventoryRecord> = {},
): InventoryRecord => ({
  certificateName,
  rootDomain: "www.contoso.com",
  sanNames: ["WWW.contoso.com.", "api.contoso.com"],
  source: "due-list",
  firstSeen: at("2026-10-01T00:00:00Z"),
  lastSeen: at("2026-11-10T00:00:00Z"),
  ...fields,
});
const event = (
  certificateName: string,
  kind: EventKind,
  iso: string,
  fields: Partial<CertificateEvent> = {},
): CertificateEvent => ({
  at: at(iso),
  certificateName,
  event: kind,
  trigger: "timer",
  runId: "run-1",
  ...fields,
});

describe("knownCertificatesOf", () => {
  it("keeps served, vault and receipt readings with a readable hash, each once", () => {
    const known = knownCertificatesOf(
      [
        record("served", { lastVerification: reading(facts("a", "b")) }),
        record("vault", {
          lastVerification: reading({
            source: "keyvault",
            pubkeySha256: hash("C"),
            receipt: {
              acceptedAt: at("2026-11-01T00:00:00Z"),
              before: facts("d"),
              after: facts("e"),
            },
          }),
        }),
        record("unhashed", { lastVerification: reading({ thumbprint: "AB".repeat(32) }) }),
        record("bad-hash", { lastVerification: reading({ pubkeySha256: "not-a-hash" }) }),
      ],
      [
        event("served", "landed", "2026-11-02T00:00:00Z", {
          before: facts("f"),
          after: facts("a", "b"),
        }),
        event("gone", "renewal-scheduled", "2026-11-03T00:00:00Z", { before: facts("0") }),
      ],
    );

    expect(known).toEqual([
      { certificateName: "served", where: "served", pubkeySha256: hash("a"), tbsSha256: hash("b") },
      { certificateName: "vault", where: "vault", pubkeySha256: hash("c"), tbsSha256: undefined },
      { certificateName: "vault", where: "receipt", pubkeySha256: hash("d"), tbsSha256: undefined },
      { certificateName: "vault", where: "receipt", pubkeySha256: hash("e"), tbsSha256: undefined },
      {
        certificateName: "served",
        where: "receipt",
        pubkeySha256: hash("f"),
        tbsSha256: undefined,
      },
      {
        certificateName: "served",
        where: "receipt",
        pubkeySha256: hash("a"),
        tbsSha256: hash("b"),
      },
      { certificateName: "gone", where: "receipt", pubkeySha256: hash("0"), tbsSha256: undefined },
    ]);
  });
});

describe("sentRequestsOf", () => {
  it("a renewal-scheduled event is a request for the certificate's names; the next landed event lands it", () => {
    const sent = sentRequestsOf(
      [record("www")],
      [
        event("www", "landed", "2026-11-01T00:00:00Z"),
        event("www", "renewal-scheduled", "2026-11-05T00:00:00Z"),
        event("other", "landed", "2026-11-05T06:00:00Z"),
        event("www", "landed", "2026-11-05T08:00:00Z"),
        event("www", "landed", "2026-11-06T08:00:00Z"),
        event("www", "renewal-scheduled", "2026-11-09T00:00:00Z"),
      ],
    );

    expect(sent).toEqual([
      {
        certificateName: "www",
        names: ["www.contoso.com", "api.contoso.com"],
        kind: "renewal",
        sentAt: at("2026-11-05T00:00:00Z"),
        landedAt: at("2026-11-05T08:00:00Z"),
      },
      {
        certificateName: "www",
        names: ["www.contoso.com", "api.contoso.com"],
        kind: "renewal",
        sentAt: at("2026-11-09T00:00:00Z"),
      },
    ]);
  });

  it("an event for a certificate the inventory does not know names nothing: no request", () => {
    expect(sentRequestsOf([], [event("x", "renewal-scheduled", "2026-11-05T00:00:00Z")])).toEqual(
      [],
    );
  });

  it("a receipt kept with the certificate is a request when history has no event for it", () => {
    const receipt = {
      acceptedAt: at("2026-11-05T00:05:00Z"),
      landedAt: at("2026-11-05T09:00:00Z"),
    };
    const records = [record("www", { lastVerification: reading({ receipt }) })];

    expect(sentRequestsOf(records, [])).toMatchObject([
      { certificateName: "www", sentAt: receipt.acceptedAt, landedAt: receipt.landedAt },
    ]);
    // The same request in history (accepted minutes apart): one request, landed by the receipt.
    expect(
      sentRequestsOf(records, [event("www", "renewal-scheduled", "2026-11-05T00:00:00Z")]),
    ).toMatchObject([{ sentAt: at("2026-11-05T00:00:00Z"), landedAt: at("2026-11-05T09:00:00Z") }]);
  });

  it("a created certificate is a creation sent when first seen, landed by a later reading", () => {
    const created = (lastVerification?: VerificationRecord) =>
      sentRequestsOf([record("new", { source: "created", lastVerification })], []);

    expect(created()).toEqual([
      {
        certificateName: "new",
        names: ["www.contoso.com", "api.contoso.com"],
        kind: "creation",
        sentAt: at("2026-10-01T00:00:00Z"),
      },
    ]);
    expect(created(reading({ thumbprint: "AB".repeat(32) }))[0]?.landedAt).toEqual(
      at("2026-11-10T00:00:00Z"),
    );
    // A reading that read no certificate, or one not after the creation, does not land it.
    expect(created(reading({ status: "unreachable" }))[0]?.landedAt).toBeUndefined();
    expect(
      created(reading({ thumbprint: "AB", at: at("2026-10-01T00:00:00Z") }))[0]?.landedAt,
    ).toBeUndefined();
  });
});
