import { describe, expect, it } from "vitest";
import {
  defaultVaultUrl,
  isKeyVaultName,
} from "../../../../shared/core/verification/keyVaultName.js";

describe("isKeyVaultName", () => {
  it.each([
    "abc",
    "kv1",
    "my-vault",
    "A-b-C",
    `a${"b".repeat(22)}c`, // 24 characters
    "Vault-2024",
  ])("accepts %s", (name) => {
    expect(isKeyVaultName(name)).toBe(true);
  });

  it.each([
    ["too short", "ab"],
    ["too long (25)", `a${"b".repeat(23)}c`],
    ["starts with a digit", "1vault"],
    ["starts with a hyphen", "-vault"],
    ["ends with a hyphen", "vault-"],
    ["double hyphen", "my--vault"],
    ["a dot", "my.vault"],
    ["a host", "evil.example.com/x"],
    ["an underscore", "my_vault"],
    ["empty", ""],
    ["a space", "my vault"],
  ])("refuses %s", (_why, name) => {
    expect(isKeyVaultName(name)).toBe(false);
  });

  it("the length bounds are exactly 3 and 24", () => {
    expect(isKeyVaultName("a".repeat(3))).toBe(true);
    expect(isKeyVaultName("a".repeat(2))).toBe(false);
    expect(isKeyVaultName("a".repeat(24))).toBe(true);
    expect(isKeyVaultName("a".repeat(25))).toBe(false);
  });
});

describe("defaultVaultUrl", () => {
  it("lower-cases the name and takes the suffix from the vault resource", () => {
    expect(defaultVaultUrl("My-Vault", "https://vault.azure.net")).toBe(
      "https://my-vault.vault.azure.net",
    );
    expect(defaultVaultUrl("kv1", "https://vault.usgovcloudapi.net")).toBe(
      "https://kv1.vault.usgovcloudapi.net",
    );
    expect(defaultVaultUrl("kv1", "https://vault.azure.cn/")).toBe("https://kv1.vault.azure.cn");
  });

  it("an unreadable resource falls back to the public cloud's suffix", () => {
    expect(defaultVaultUrl("kv1", "not a url")).toBe("https://kv1.vault.azure.net");
    expect(defaultVaultUrl("kv1", "")).toBe("https://kv1.vault.azure.net");
  });
});
