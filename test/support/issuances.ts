import { memoryTransparencyStore } from "../../shared/adapters/storage/memory/memoryTransparency.js";
import type { TransparencyStore } from "../../shared/core/ports/transparency.js";
import type {
  Issuance,
  IssuanceVerdict,
  SeenIssuance,
} from "../../shared/core/transparency/issuance.js";

/**
 * Certificate Transparency issuances built in a test (as the watch would store them), and the
 * in-memory store holding them: for the surfaces that list and acknowledge them.
 */

export const T0 = new Date("2026-11-20T08:00:00Z");
const HOUR_MS = 3_600_000;

/** An hour after T0 per `hours`. */
export const hoursAfter = (hours: number) => new Date(T0.getTime() + hours * HOUR_MS);

export interface SeenInit {
  readonly account?: string;
  readonly id: string;
  readonly watched?: string;
  readonly hours?: number;
  readonly verdict?: IssuanceVerdict;
  readonly issuance?: Partial<Issuance>;
  readonly acknowledged?: SeenIssuance["acknowledged"];
}

export const unexpected = (
  why = "no certificate certsched keeps has its public key",
): IssuanceVerdict => ({
  kind: "unexpected",
  since: T0,
  why,
});

export const expectedByKey = (certificateName = "www"): IssuanceVerdict => ({
  kind: "expected",
  because: "public-key",
  certificateName,
  where: "served",
});

export const pendingFor = (certificateName = "www"): IssuanceVerdict => ({
  kind: "pending",
  certificateName,
  sentAt: T0,
  until: hoursAfter(48),
});

/** One stored issuance: unexpected, for www.contoso.example, first seen `hours` after T0. */
export function seen(init: SeenInit): SeenIssuance {
  const watched = init.watched ?? "contoso.example";
  return {
    account: init.account ?? "default",
    watched,
    firstSeenAt: hoursAfter(init.hours ?? 0),
    verdict: init.verdict ?? unexpected(),
    issuance: {
      id: init.id,
      dnsNames: [`www.${watched}`],
      moreNames: 0,
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      notBefore: hoursAfter(-1),
      notAfter: new Date("2027-02-18T07:00:00Z"),
      revoked: false,
      problems: [],
      certSha256: "a".repeat(64),
      ...init.issuance,
    },
    ...(init.acknowledged ? { acknowledged: init.acknowledged } : {}),
  };
}

/** The in-memory store holding `items`. */
export async function storeWith(items: readonly SeenIssuance[]): Promise<TransparencyStore> {
  const store = memoryTransparencyStore();
  await store.addNew(items);
  return store;
}
