import { ensureError } from "../errors.js";
import type { Logger } from "../log.js";
import { redact } from "../redact.js";
import type { CertificateRecord } from "../schemas/records.js";
import type { RenewOptions } from "./serviceClient.js";

/** What a v3 renewal by name needs of the service client. */
export interface RenewByNameClient {
  get(certificateName: string): Promise<CertificateRecord>;
  renew(certificateName: string, options?: RenewOptions): Promise<string>;
}

/** The service's confirmation, and the target the renewal was sent for (undefined: unknown). */
export interface RenewedByName {
  readonly message: string;
  readonly target: string | undefined;
}

/**
 * A v3 renewal of a certificate known only by its name (the CLI's renew, the HTTP API's): its
 * target is looked up with Get Certificate first (one extra call), so a key-vault certificate's
 * renewal carries the vault token as the vendor's renewal function sends it. A failed look-up
 * does not stop the renewal: it goes out with the spec's two fields (2.2), and a log line says
 * so and why.
 */
export async function renewByName(
  client: RenewByNameClient,
  certificateName: string,
  log: Logger,
): Promise<RenewedByName> {
  let target: string | undefined;
  try {
    target = (await client.get(certificateName)).target;
  } catch (error) {
    log.warn(
      `certsched: could not look up the target of ${certificateName} with Get Certificate, so its renewal is sent without the vault token (spec 2.2's two fields): ${redact(ensureError(error).message)}`,
    );
  }
  const message = await client.renew(certificateName, { target });
  return { message, target };
}
