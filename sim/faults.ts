import type { EchoTokens } from "./echoTokens.js";
import type { SimOperation } from "./operation.js";
import { mulberry32 } from "./prng.js";

/**
 * A misbehaviour to apply to a call instead of, or before, the real handler.
 * A fault "responds" when any of status, headers or body is set (status default 500); it never
 * changes state then. With only delayMs (or dripMs) the real handler runs, after the delay.
 */
export interface Fault {
  /** Status to answer with instead of running the real handler. */
  status?: number;
  /** Response headers; content-type defaults to text/plain. */
  headers?: Record<string, string>;
  /** Response body. Default "". */
  body?: string;
  /** Milliseconds (real time) to wait before responding, resetting or handling. */
  delayMs?: number;
  /**
   * Send the status and headers at once, then the body one byte every `dripMs` milliseconds
   * (real time): a server that never stalls long enough for a between-chunks timeout to fire.
   * Drips the fault's response, or the real handler's when the fault does not respond.
   */
  dripMs?: number;
  /**
   * The real handler answers, then its JSON records quote the cloud tokens the request carried
   * (Get Certificate, which carries none: the newest token of each resource issued), see
   * sim/echoTokens.ts. Ignored when the fault responds itself.
   */
  echoTokens?: EchoTokens;
  /** Destroy the socket without any response. */
  reset?: boolean;
  /** How many calls the fault applies to. Default 1; Infinity allowed. */
  times?: number;
  /** Apply only to the Nth call (1-based) of the operation, counted from simulator start. */
  onCall?: number;
}

/** Seeded random failures for soak tests; service operations only, never the token endpoint. */
export interface RandomFaults {
  /** Probability in 0..1 that a service call fails. */
  rate: number;
  seed: number;
  /** One of these is picked (uniformly) for each failing call. */
  faults: Fault[];
}

interface QueuedFault {
  fault: Fault;
  remaining: number;
}

/** Decides, per call, which fault (if any) applies. Calls are counted per operation. */
export class FaultPlan {
  readonly #queues = new Map<SimOperation, QueuedFault[]>();
  readonly #calls = new Map<SimOperation, number>();
  #random: { rate: number; faults: Fault[]; next: () => number } | undefined;

  inject(op: SimOperation, fault: Fault): void {
    const remaining = fault.times ?? 1;
    if (!(remaining > 0)) throw new RangeError("Fault.times must be greater than 0");
    if (fault.dripMs !== undefined && !(fault.dripMs > 0)) {
      throw new RangeError("Fault.dripMs must be greater than 0");
    }
    if (fault.onCall !== undefined && !(Number.isInteger(fault.onCall) && fault.onCall >= 1)) {
      throw new RangeError("Fault.onCall must be an integer from 1");
    }
    const queue = this.#queues.get(op) ?? [];
    queue.push({ fault, remaining });
    this.#queues.set(op, queue);
  }

  setRandom(random: RandomFaults | undefined): void {
    if (random === undefined) {
      this.#random = undefined;
      return;
    }
    if (!(random.rate >= 0 && random.rate <= 1)) throw new RangeError("rate must be in 0..1");
    if (random.faults.length === 0) throw new RangeError("faults must not be empty");
    this.#random = { rate: random.rate, faults: random.faults, next: mulberry32(random.seed) };
  }

  /** Clears queued and random faults; call counters keep running (onCall counts from start). */
  clear(): void {
    this.#queues.clear();
    this.#random = undefined;
  }

  /** Counts one call of `op` and returns the fault for it, if any. */
  next(op: SimOperation): Fault | undefined {
    const call = (this.#calls.get(op) ?? 0) + 1;
    this.#calls.set(op, call);
    const queue = this.#queues.get(op);
    if (queue) {
      const index = queue.findIndex((q) => q.fault.onCall === undefined || q.fault.onCall === call);
      const queued = queue[index];
      if (queued) {
        queued.remaining -= 1;
        if (queued.remaining <= 0) queue.splice(index, 1);
        return queued.fault;
      }
    }
    if (this.#random && op !== "token" && this.#random.next() < this.#random.rate) {
      const { faults, next } = this.#random;
      return faults[Math.floor(next() * faults.length)];
    }
    return undefined;
  }
}

export function faultResponds(fault: Fault): boolean {
  return fault.status !== undefined || fault.headers !== undefined || fault.body !== undefined;
}
