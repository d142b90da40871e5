import type { ReservationInput } from "../../core/ports/budget.js";
import { readFits, renewalFits } from "../../core/quota/budgetRules.js";

/**
 * Whether `used` rows (own included) leave room for one reservation. The need of renewals is
 * asked once per reservation, and only for a read that passes the 80 % line (two storage reads).
 */
export class Room {
  /** What due renewals need, once asked. */
  need: number | undefined;
  readonly #purpose: ReservationInput["purpose"];
  readonly #requests: number;
  readonly #needOfRenewals: () => Promise<number>;

  constructor(
    purpose: ReservationInput["purpose"],
    requests: number,
    needOfRenewals: () => Promise<number>,
  ) {
    this.#purpose = purpose;
    this.#requests = requests;
    this.#needOfRenewals = needOfRenewals;
  }

  async allows(used: number): Promise<boolean> {
    if (this.#purpose !== "read") return renewalFits(used, this.#requests);
    if (!readFits(used, 0, this.#requests)) return false;
    // Asked after an insert or a look at the window: the storage clock is known by then.
    this.need ??= await this.#needOfRenewals();
    return readFits(used, this.need, this.#requests);
  }
}
