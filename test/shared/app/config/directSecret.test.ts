import { describe, expect, it } from "vitest";
import { directSecret } from "../../../../shared/app/config/directSecret.js";

describe("a secret given directly", () => {
  it("needs eight characters besides spaces: a shorter one could not be kept out of logs", () => {
    expect(directSecret.safeParse("12345678").success).toBe(true);
    expect(directSecret.safeParse("1234567").success).toBe(false);
    expect(directSecret.safeParse("1234 567 ").success).toBe(false);
    const refused = directSecret.safeParse("abc");
    expect(refused.success ? "" : refused.error.issues[0]?.message).toMatch(
      /^must hold at least 8 characters \(not counting spaces\)/,
    );
  });
});
