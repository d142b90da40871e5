import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isPublicAddress,
  serviceNameProblem,
} from "../../../../shared/core/verification/publicAddress.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** Which addresses a name from the service may reach. */

describe("isPublicAddress: the edges of every range a service name may not reach", () => {
  it.each([
    ["0.0.0.0", false],
    ["0.255.255.255", false],
    ["1.0.0.0", true],
    ["9.255.255.255", true],
    ["10.0.0.0", false],
    ["10.255.255.255", false],
    ["11.0.0.0", true],
    ["100.63.255.255", true],
    ["100.64.0.0", false],
    ["100.127.255.255", false],
    ["100.128.0.0", true],
    ["126.255.255.255", true],
    ["127.0.0.1", false],
    ["127.255.255.255", false],
    ["128.0.0.0", true],
    ["169.253.255.255", true],
    ["169.254.169.254", false],
    ["169.255.0.0", true],
    ["172.15.255.255", true],
    ["172.16.0.0", false],
    ["172.31.255.255", false],
    ["172.32.0.0", true],
    ["192.167.255.255", true],
    ["192.168.0.0", false],
    ["192.168.255.255", false],
    ["192.169.0.0", true],
    ["223.255.255.255", true],
    ["224.0.0.0", false],
    ["255.255.255.255", false],
    ["8.8.8.8", true],
    ["::", false],
    ["::1", false],
    ["0:0:0:0:0:0:0:1", false],
    ["::2", false],
    ["fc00::1", false],
    ["fdff:ffff::1", false],
    ["fe00::1", true],
    ["fe80::1", false],
    ["fe80::1%eth0", false],
    ["febf::1", false],
    ["fec0::1", false],
    ["ff02::1", false],
    ["2001:db8::1", false],
    ["2606:4700::1111", true],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false],
    ["::ffff:8.8.8.8", true],
    ["::ffff:a9fe:a9fe", false],
    ["::127.0.0.1", false],
    ["64:ff9b::7f00:1", false],
    ["64:ff9b::808:808", true],
    ["2002:7f00:1::", false],
    ["2002:808:808::1", true],
    ["localhost", false],
    ["", false],
    // Not globally reachable IPv6 (IANA special-purpose registry) that may still lead inward:
    ["64:ff9b:1::a00:5", false], // local-use NAT64 (RFC 8215): an IPv4 of the app's own network
    ["64:ff9b:1:ffff:ffff:ffff:ffff:ffff", false],
    ["64:ff9b:2::1", true],
    ["::ffff:0:7f00:1", false], // IPv4-translated (SIIT, RFC 2765)
    ["::ffff:0:a00:5", false],
    ["2001::1", false], // Teredo: the IPv4 is carried obfuscated
    ["2001:0:ffff:ffff:ffff:ffff:ffff:ffff", false],
    ["2001:1::1", true],
    ["3fff::1", false], // documentation (RFC 9637)
    ["3fff:fff:ffff::1", false],
    ["3fff:1000::1", true],
    ["5f00::1", false], // SRv6 SIDs (RFC 9602)
    ["5f01::1", true],
  ])("%s is public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it("an IPv4 address and every IPv6 form carrying it get the same answer", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
        const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
        const forms = [
          `::ffff:${v4}`,
          `::ffff:${hex(a, b)}:${hex(c, d)}`,
          `0:0:0:0:0:ffff:${v4}`,
          `64:ff9b::${v4}`,
          `2002:${hex(a, b)}:${hex(c, d)}::1`,
        ];
        for (const form of forms) {
          if (isPublicAddress(form) && !isPublicAddress(v4)) return false;
        }
        return isPublicAddress(`::ffff:${v4}`) === isPublicAddress(v4);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe("serviceNameProblem: a name from the service, judged on its text", () => {
  it("every spelling of an IPv4 address is an address (decimal, hex, octal, short forms)", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const n = v4.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
        const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
        const spellings = [
          v4,
          `${v4}.`,
          String(n),
          `0x${n.toString(16)}`,
          `0${n.toString(8)}`,
          `${a}.${(b << 16) | (c << 8) | d}`,
          `0x${a.toString(16)}.${b}.${c}.${d}`,
          `0${a.toString(8)}.0${b.toString(8)}.${c}.${d}`,
        ];
        return spellings.every(
          (s) => serviceNameProblem(s) === "it is an IP address, not a DNS host name",
        );
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it.each([
    ["www.contoso.com", undefined],
    ["www.contoso.com.", undefined],
    ["xn--bcher-kva.de", undefined],
    ["1.example.com", undefined],
    ["0x7f.example", undefined],
    ["www.contoso.com:443", "it carries a port"],
    ["www.contoso.com:8443", "it carries a port"],
    ["[::1]", "it is an IP address, not a DNS host name"],
    ["::1", "it is an IP address, not a DNS host name"],
    ["[::ffff:127.0.0.1]:22", "it is an IP address, not a DNS host name"],
    ["localhost", "it is a loopback name (localhost)"],
    ["LOCALHOST.", "it is a loopback name (localhost)"],
    [" localhost ", "it is a loopback name (localhost)"],
    ["db.localhost", "it is a loopback name (localhost)"],
    ["localhost.contoso.com", undefined],
    ["notlocalhost", undefined],
  ])("%j: %s", (name, problem) => {
    expect(serviceNameProblem(name)).toBe(problem);
  });
});
