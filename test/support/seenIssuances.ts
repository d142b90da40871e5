import { memoryTransparencyStore } from "../../shared/adapters/storage/memory/memoryTransparency.js";
import type { TransparencyStore } from "../../shared/core/ports/transparency.js";
import type { Issuance, SeenIssuance } from "../../shared/core/transparency/issuance.js";

/** Issuances as a Certificate Transparency watch keeps them, for the surfaces' tests. */

export const SEEN_AT = new Date("2026-05-30T10:00:00.000Z");

/** An unexpected issuance of `account`; `issuance` overrides the watcher's fields. */
export function seenIssuance(
  extra: Partial<SeenIssuance> = {},
  issuance: Partial<Issuance> = {},
): SeenIssuance {
  return {
    account: "contoso",
    watched: "contoso.com",
    firstSeenAt: SEEN_AT,
    verdict: { kind: "unexpected", since: SEEN_AT, why: "nothing certsched did explains it" },
    issuance: {
      id: "u1",
      certSha256: "a".repeat(64),
      notBefore: new Date("2026-05-30T09:00:00.000Z"),
      notAfter: new Date("2026-08-28T09:00:00.000Z"),
      dnsNames: ["shop.contoso.com"],
      moreNames: 0,
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      revoked: false,
      problems: [],
      ...issuance,
    },
    ...extra,
  };
}

/**
 * One of each state for `account`: unexpected ("u1"), acknowledged ("a1"), pending ("p1") and
 * expected ("e1"), each with a name of its own (`<id>.contoso.com`).
 */
export function everyState(account = "contoso"): SeenIssuance[] {
  const named = (id: string) => ({ id, dnsNames: [`${id}.contoso.com`] });
  return [
    seenIssuance({ account }, named("u1")),
    seenIssuance(
      {
        account,
        acknowledged: { at: SEEN_AT, by: "cli", reason: "the web team's own certificate" },
      },
      named("a1"),
    ),
    seenIssuance(
      {
        account,
        verdict: {
          kind: "pending",
          certificateName: "shop-contoso-com",
          sentAt: SEEN_AT,
          until: new Date("2026-06-01T10:00:00.000Z"),
        },
      },
      named("p1"),
    ),
    seenIssuance(
      {
        account,
        verdict: {
          kind: "expected",
          because: "public-key",
          certificateName: "www-contoso-com",
          where: "served",
        },
      },
      named("e1"),
    ),
  ];
}

/** A memory store holding `items`. */
export async function storeWith(items: readonly SeenIssuance[]): Promise<TransparencyStore> {
  const store = memoryTransparencyStore();
  await store.addNew(items);
  return store;
}

/** A store whose every read fails as an unreachable table does. */
export function failingStore(message: string): TransparencyStore {
  return {
    ...memoryTransparencyStore(),
    kind: "table",
    list: async () => {
      throw new Error(message);
    },
  };
}
