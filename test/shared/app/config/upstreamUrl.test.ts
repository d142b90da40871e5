import { describe, expect, it } from "vitest";
import { upstreamUrl } from "../../../../shared/app/config/upstreamUrl.js";

const messageOf = (text: string, allowQuery = false) => {
  const result = upstreamUrl({ allowQuery }).safeParse(text);
  return result.success ? result.data : `! ${result.error.issues[0]?.message}`;
};

describe("an upstream's URL setting", () => {
  it("https anywhere, plain http on loopback only; trailing slashes dropped", () => {
    expect(messageOf("https://ct.example.com/")).toBe("https://ct.example.com");
    expect(messageOf("http://127.0.0.1:9/v1//")).toBe("http://127.0.0.1:9/v1");
    expect(messageOf("http://ct.example.com")).toMatch(/^! must use https/);
    expect(messageOf("ct.example.com")).toBe("! must be an absolute URL");
  });

  it("credentials, a fragment, or a query unless allowed are refused", () => {
    expect(messageOf("https://u:p@ct.example.com")).toBe("! must not carry credentials");
    expect(messageOf("https://ct.example.com/?a=1")).toBe("! must not have a query or fragment");
    expect(messageOf("https://ct.example.com/?a=1", true)).toBe("https://ct.example.com/?a=1");
    expect(messageOf("https://ct.example.com/#x", true)).toBe("! must not have a fragment");
  });
});
