import {
  CERTIFICATE_LIFETIME_MS,
  type CertificateTarget,
  type ChallengeType,
  KEY_VAULT_TARGET,
  type RecordTarget,
  type SeedCertificate,
  type SimCertificate,
} from "./certificate.js";

/** What an accepted create request contributes to the certificate once it completes. */
export interface NewCertificate {
  certificateName: string;
  rootDomain: string;
  email: string;
  challengeType: ChallengeType;
  target: CertificateTarget;
  cloudSubscriptionId: string;
  dnsZoneResourceGroup: string | null;
  keyVaultName: string | null;
}

/**
 * A renewal the service completed (the certificate record now carries the new dates). The
 * hosting side and the fake Key Vault install the new certificate from it, unless a fault says
 * the installation did not happen.
 */
export interface CertificateRenewed {
  readonly certificateName: string;
  readonly id: number;
  readonly target: RecordTarget;
  readonly rootDomain: string | null;
  readonly keyVaultName: string | null;
  readonly keyVaultCertificateName: string | null;
  /** The new certificate's notBefore (the completion time on the sim clock). */
  readonly issueDate: Date;
  /** The new certificate's notAfter. */
  readonly expiryDate: Date;
}

export type RenewedListener = (event: CertificateRenewed) => void;

interface PendingCreate {
  dueAt: Date;
  certificate: NewCertificate;
}

/**
 * The simulator's certificates. Creation and renewal are scheduled (spec 3); they are completed
 * lazily by `settle(now)` on every read, so a fake clock decides deterministically when.
 * Lookups are by map; only the list is a linear scan.
 */
export class CertificateStore {
  readonly #byName = new Map<string, SimCertificate>();
  readonly #byId = new Map<number, SimCertificate>();
  readonly #pendingRenewals = new Set<SimCertificate>();
  readonly #renewedListeners = new Set<RenewedListener>();
  #pendingCreates: PendingCreate[] = [];
  #nextId = 1;

  constructor(
    private readonly subscriptionNumber: number,
    private readonly completionDelayMs: number,
  ) {}

  add(seed: SeedCertificate): SimCertificate {
    if (this.#byName.has(seed.certificateName)) {
      throw new Error(`Certificate ${seed.certificateName} already exists in the simulator`);
    }
    const id = seed.id ?? this.#nextId;
    if (this.#byId.has(id)) throw new Error(`Certificate id ${id} already exists in the simulator`);
    const target = seed.target ?? "Cloud App Service";
    const cert: SimCertificate = {
      certificateName: seed.certificateName,
      rootDomain: seed.rootDomain ?? null,
      email: seed.email ?? null,
      challengeType: seed.challengeType ?? (target === KEY_VAULT_TARGET ? "dns" : "http"),
      orderUri: null,
      csrInfo: null,
      issueDate: seed.issueDate ?? new Date(seed.expiryDate.getTime() - CERTIFICATE_LIFETIME_MS),
      expiryDate: seed.expiryDate,
      target,
      renewal: seed.renewal ?? "Automatic",
      id,
      subscriptionId: this.subscriptionNumber,
      password: seed.password ?? null,
      pfxString: seed.pfxString ?? null,
      certificateDownloadUrl: seed.certificateDownloadUrl ?? null,
      cloudSubscriptionId: seed.cloudSubscriptionId ?? null,
      dnsZoneResourceGroup: seed.dnsZoneResourceGroup ?? null,
      keyVaultName: seed.keyVaultName ?? null,
      keyVaultCertificateName: target === KEY_VAULT_TARGET ? seed.certificateName : null,
      siteId: 0,
      renewals: 0,
    };
    if (seed.refuseRenewal !== undefined) cert.refuseRenewal = seed.refuseRenewal;
    this.#insert(cert);
    return cert;
  }

  /**
   * Calls `listener` for every renewal completed from now on, in completion order; returns the
   * function that stops it. Completion is lazy (see `settle`): a listener hears of a renewal at
   * the first read at or after its completion time on the sim clock.
   */
  onRenewed(listener: RenewedListener): () => void {
    this.#renewedListeners.add(listener);
    return () => this.#renewedListeners.delete(listener);
  }

  /** Completes every scheduled create and renewal that is due at `now`. */
  settle(now: Date): void {
    const t = now.getTime();
    const renewed: CertificateRenewed[] = [];
    for (const cert of this.#pendingRenewals) {
      if (cert.pendingUntil && cert.pendingUntil.getTime() <= t) {
        this.#issue(cert, cert.pendingUntil);
        delete cert.pendingUntil;
        this.#pendingRenewals.delete(cert);
        renewed.push(renewedEvent(cert));
      }
    }
    if (this.#pendingCreates.length > 0) {
      const waiting: PendingCreate[] = [];
      for (const pending of this.#pendingCreates) {
        if (pending.dueAt.getTime() <= t) this.#completeCreate(pending);
        else waiting.push(pending);
      }
      this.#pendingCreates = waiting;
    }
    // Listeners run once the store is consistent: one that throws (a bug in a test's wiring)
    // surfaces as the simulator's 500, and leaves no renewal half-completed.
    for (const event of renewed) {
      for (const listener of [...this.#renewedListeners]) listener(event);
    }
  }

  scheduleCreate(certificate: NewCertificate, now: Date): void {
    this.#pendingCreates.push({ dueAt: this.#dueAt(now), certificate });
  }

  /** Counts an accepted renew call; a renewal already scheduled keeps its completion time. */
  scheduleRenewal(cert: SimCertificate, now: Date): void {
    cert.renewals += 1;
    if (cert.pendingUntil) return;
    cert.pendingUntil = this.#dueAt(now);
    this.#pendingRenewals.add(cert);
  }

  byName(name: string): SimCertificate | undefined {
    return this.#byName.get(name);
  }

  byId(id: number): SimCertificate | undefined {
    return this.#byId.get(id);
  }

  /** Certificates whose expiry is before `limit`, in insertion order. */
  expiringBefore(limit: Date): SimCertificate[] {
    const t = limit.getTime();
    const due: SimCertificate[] = [];
    for (const cert of this.#byName.values()) {
      if (cert.expiryDate.getTime() < t) due.push(cert);
    }
    return due;
  }

  all(): SimCertificate[] {
    return [...this.#byName.values()];
  }

  #dueAt(now: Date): Date {
    return new Date(now.getTime() + this.completionDelayMs);
  }

  #issue(cert: SimCertificate, at: Date): void {
    cert.issueDate = new Date(at.getTime());
    cert.expiryDate = new Date(at.getTime() + CERTIFICATE_LIFETIME_MS);
  }

  // A create for a name that exists re-issues that certificate under its id; the spec does not
  // say what the service does, and this keeps names unique.
  #completeCreate({ dueAt, certificate }: PendingCreate): void {
    const existing = this.#byName.get(certificate.certificateName);
    const cert =
      existing ??
      this.add({
        certificateName: certificate.certificateName,
        expiryDate: dueAt,
        issueDate: dueAt,
      });
    cert.rootDomain = certificate.rootDomain;
    cert.email = certificate.email;
    cert.challengeType = certificate.challengeType;
    cert.target = certificate.target;
    cert.cloudSubscriptionId = certificate.cloudSubscriptionId;
    cert.dnsZoneResourceGroup = certificate.dnsZoneResourceGroup;
    cert.keyVaultName = certificate.keyVaultName;
    cert.keyVaultCertificateName =
      certificate.target === KEY_VAULT_TARGET ? certificate.certificateName : null;
    this.#issue(cert, dueAt);
  }

  #insert(cert: SimCertificate): void {
    this.#byName.set(cert.certificateName, cert);
    this.#byId.set(cert.id, cert);
    this.#nextId = Math.max(this.#nextId, cert.id + 1);
  }
}

function renewedEvent(cert: SimCertificate): CertificateRenewed {
  return {
    certificateName: cert.certificateName,
    id: cert.id,
    target: cert.target,
    rootDomain: cert.rootDomain,
    keyVaultName: cert.keyVaultName,
    keyVaultCertificateName: cert.keyVaultCertificateName,
    issueDate: new Date(cert.issueDate),
    expiryDate: new Date(cert.expiryDate),
  };
}
