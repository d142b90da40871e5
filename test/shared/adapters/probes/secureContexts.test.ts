import { describe, expect, it } from "vitest";
import { secureContextFor } from "../../../../shared/adapters/probes/secureContexts.js";

describe("secureContextFor", () => {
  it("makes one context per trust list, and one for Node's own store", () => {
    const ca: readonly string[] = [];
    expect(secureContextFor(undefined)).toBe(secureContextFor(undefined));
    expect(secureContextFor(ca)).toBe(secureContextFor(ca));
    expect(secureContextFor(ca)).not.toBe(secureContextFor(undefined));
    expect(secureContextFor([])).not.toBe(secureContextFor(ca));
  });
});
