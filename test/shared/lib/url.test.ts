import { describe, expect, it } from "vitest";
import { isLoopbackHost, isSecureOrLoopback } from "../../../shared/lib/url.js";

describe("isLoopbackHost", () => {
  it.each(["localhost", "::1", "[::1]", "127.0.0.1", "127.255.255.254", "127.1.2.3"])(
    "%s is loopback",
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each([
    "example.com",
    "localhost.example.com",
    "128.0.0.1",
    "10.0.0.1",
    "127.0.0",
    "127.0.0.1.example.com",
    "x127.0.0.1",
    "127.0.0.1234",
    "0.0.0.0",
    "[::2]",
    "",
  ])("%s is not", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("isSecureOrLoopback", () => {
  it.each([
    "https://example.com/",
    "https://127.0.0.1:8443/",
    "http://localhost:7071/api",
    "http://127.0.0.1:10000/devstoreaccount1",
    "http://[::1]:8080/",
  ])("accepts %s", (url) => {
    expect(isSecureOrLoopback(new URL(url))).toBe(true);
  });

  it.each([
    "http://example.com/",
    "http://10.0.0.5/",
    "http://localhost.evil.example/",
    "ftp://localhost/",
    "ws://localhost/",
    "file:///etc/passwd",
  ])("refuses %s", (url) => {
    expect(isSecureOrLoopback(new URL(url))).toBe(false);
  });
});
