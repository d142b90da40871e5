import { describe, expect, it } from "vitest";
import { fixedConcurrency } from "../../../../shared/core/ports/concurrency.js";

describe("fixedConcurrency", () => {
  it("is the width it was given, whatever the service says", async () => {
    const fixed = fixedConcurrency(6);
    expect(fixed.kind).toBe("fixed");
    fixed.observe({ kind: "throttled", epoch: 0 });
    fixed.observe({ kind: "answered", latencyMs: 5, epoch: 0 });
    await fixed.refresh();
    await fixed.settled();
    expect(fixed.current()).toBe(6);
    expect(fixed.epoch()).toBe(0);
    expect(fixed.state()).toEqual({ limit: 6, epoch: 0, healthy: 0 });
    expect(fixed.takeWarnings()).toEqual([]);
  });

  it("is at least 1, a whole number", () => {
    expect(fixedConcurrency(0).current()).toBe(1);
    expect(fixedConcurrency(3.7).current()).toBe(3);
  });
});
