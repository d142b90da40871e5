import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SeenIssuance } from "../../../../shared/core/transparency/issuance.js";
import {
  issuanceCondition,
  issuanceExpired,
  issuanceLine,
  issuanceLink,
  issuanceNames,
  issuanceState,
  issuanceView,
  needsAttention,
  verdictText,
} from "../../../../shared/core/transparency/issuanceView.js";
import { propertyRuns } from "../../../support/fastCheck.js";
import { everyState, SEEN_AT, seenIssuance } from "../../../support/seenIssuances.js";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const ACK = { at: NOW, by: "cli", reason: "ours after all" };
const byId = (id: string): SeenIssuance => {
  const found = everyState().find((s) => s.issuance.id === id);
  if (!found) throw new Error(id);
  return found;
};

describe("issuanceState and needsAttention", () => {
  it.each([
    ["u1", "unexpected", true],
    ["a1", "acknowledged", false],
    ["p1", "pending", false],
    ["e1", "expected", false],
  ] as const)("%s is %s; red: %s", (id, state, red) => {
    expect(issuanceState(byId(id))).toBe(state);
    expect(needsAttention(byId(id))).toBe(red);
  });

  it("an acknowledgement changes only an unexpected issuance's state", () => {
    expect(issuanceState({ ...byId("e1"), acknowledged: ACK })).toBe("expected");
    expect(issuanceState({ ...byId("p1"), acknowledged: ACK })).toBe("pending");
  });
});

describe("verdictText", () => {
  it("says why, for each verdict", () => {
    expect(verdictText(byId("e1").verdict)).toBe(
      'same public key as the served certificate "www-contoso-com"',
    );
    expect(
      verdictText({ kind: "expected", because: "tbs", certificateName: "c", where: "vault" }),
    ).toBe('same TBS hash as the vault certificate "c"');
    expect(
      verdictText({ kind: "expected", because: "tbs", certificateName: "c", where: "receipt" }),
    ).toBe('same TBS hash as the renewed certificate "c"');
    expect(
      verdictText({ kind: "expected", because: "request", certificateName: "c", sentAt: SEEN_AT }),
    ).toBe('issued after certsched\'s request for "c" at 2026-05-30T10:00:00Z, which landed');
    expect(verdictText(byId("p1").verdict)).toBe(
      'may be certsched\'s request for "shop-contoso-com" sent at 2026-05-30T10:00:00Z: judged at 2026-06-01T10:00:00Z unless it lands first',
    );
    expect(verdictText(byId("u1").verdict)).toBe("nothing certsched did explains it");
  });
});

describe("issuanceLink", () => {
  it("crt.sh by the certificate's SHA-256; none without a well-formed one", () => {
    expect(issuanceLink(seenIssuance())).toBe(`https://crt.sh/?sha256=${"a".repeat(64)}`);
    for (const certSha256 of [undefined, "A".repeat(64), "a".repeat(63), `${"a".repeat(64)}&x=1`]) {
      expect(issuanceLink(seenIssuance({}, { certSha256 })), String(certSha256)).toBeUndefined();
    }
  });
});

describe("issuanceNames", () => {
  it("the first three, then how many more, and those the watcher did not keep", () => {
    expect(issuanceNames(seenIssuance({}, { dnsNames: [] }))).toBe("(no names)");
    const five = ["a", "b", "c", "d", "e"].map((n) => `${n}.contoso.com`);
    expect(issuanceNames(seenIssuance({}, { dnsNames: five }))).toBe(
      "a.contoso.com, b.contoso.com, c.contoso.com and 2 more",
    );
    expect(issuanceNames(seenIssuance({}, { dnsNames: ["a.contoso.com"], moreNames: 7 }))).toBe(
      "a.contoso.com (+7 not kept)",
    );
  });
});

describe("issuanceCondition and issuanceExpired", () => {
  it("revoked first, expired at its notAfter, live otherwise; no end: not expired", () => {
    expect(issuanceCondition(seenIssuance({}, { revoked: true }), NOW)).toBe("revoked");
    expect(issuanceCondition(seenIssuance({}, { notAfter: NOW }), NOW)).toBe("expired");
    const later = new Date(NOW.getTime() + 1);
    expect(issuanceCondition(seenIssuance({}, { notAfter: later }), NOW)).toBeUndefined();
    expect(issuanceExpired(seenIssuance({}, { notAfter: undefined }), NOW)).toBe(false);
  });
});

describe("issuanceLine", () => {
  it("names the id, watched name, account, names, issuer and validity", () => {
    expect(issuanceLine(byId("u1"))).toBe(
      'issuance u1 for "contoso.com" of account "contoso": u1.contoso.com by C=US, O=Let\'s Encrypt, CN=R11, valid 2026-05-30T09:00:00Z to 2026-08-28T09:00:00Z',
    );
    const bare = seenIssuance({}, { issuer: undefined, notBefore: undefined, notAfter: undefined });
    expect(issuanceLine(bare)).toMatch(/by an unknown issuer, valid \? to \?$/);
  });

  it("never holds a raw control or bidi character, whatever was stored", () => {
    const raw = (text: string) =>
      [...text].some((ch) => {
        const c = ch.codePointAt(0) ?? 0;
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e);
      });
    const text = fc.string({ unit: "binary", maxLength: 40 });
    fc.assert(
      fc.property(
        text,
        text,
        fc.array(text, { maxLength: 5 }),
        fc.option(text),
        (watched, account, dnsNames, issuer) => {
          const line = issuanceLine(
            seenIssuance({ watched, account }, { dnsNames, issuer: issuer ?? undefined }),
          );
          return !raw(line) && line.startsWith("issuance u1 for ");
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe("issuanceView", () => {
  it("the JSON view of an unexpected issuance", () => {
    expect(issuanceView(byId("u1"), NOW)).toEqual({
      account: "contoso",
      id: "u1",
      watched: "contoso.com",
      state: "unexpected",
      why: "nothing certsched did explains it",
      names: ["u1.contoso.com"],
      moreNames: 0,
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      notBefore: "2026-05-30T09:00:00Z",
      notAfter: "2026-08-28T09:00:00Z",
      revoked: false,
      expired: false,
      firstSeenAt: "2026-05-30T10:00:00Z",
      link: `https://crt.sh/?sha256=${"a".repeat(64)}`,
      problems: [],
    });
  });

  it("names the certificate an expected or pending one is, and the acknowledgement", () => {
    expect(issuanceView(byId("e1"), NOW).certificateName).toBe("www-contoso-com");
    expect(issuanceView(byId("p1"), NOW).certificateName).toBe("shop-contoso-com");
    expect(issuanceView(byId("a1"), NOW)).toMatchObject({
      state: "acknowledged",
      acknowledged: {
        at: "2026-05-30T10:00:00Z",
        by: "cli",
        reason: "the web team's own certificate",
      },
    });
  });

  it("leaves out what is unknown", () => {
    const view = issuanceView(
      seenIssuance(
        {},
        { issuer: undefined, notBefore: undefined, notAfter: undefined, certSha256: undefined },
      ),
      NOW,
    );
    for (const key of [
      "issuer",
      "notBefore",
      "notAfter",
      "link",
      "certificateName",
      "acknowledged",
    ]) {
      expect(view, key).not.toHaveProperty(key);
    }
  });

  it("a revoked certificate that has expired says both (regression: expired was false once revoked)", () => {
    const view = issuanceView(seenIssuance({}, { revoked: true, notAfter: SEEN_AT }), NOW);
    expect(view).toMatchObject({ revoked: true, expired: true });
  });
});
