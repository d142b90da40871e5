import type tls from "node:tls";
import { describe, expect, it } from "vitest";
import {
  chainVerdict,
  serverIdentityError,
} from "../../../../shared/adapters/probes/handshakeVerdict.js";

const peerWith = (subjectaltname: string) => ({ subjectaltname }) as tls.PeerCertificate;

describe("serverIdentityError", () => {
  it("matches an IPv6 address against the certificate's IP entries in any spelling", () => {
    const peer = peerWith("DNS:example.com, IP Address:0:0:0:0:0:0:0:1");
    expect(serverIdentityError("::1", peer)).toBeUndefined();
    expect(serverIdentityError("::2", peer)?.message).toBe(
      "IP: ::2 is not in the cert's list: 0:0:0:0:0:0:0:1",
    );
    expect(serverIdentityError("::1", peerWith("DNS:example.com"))?.message).toBe(
      "IP: ::1 is not in the cert's list: (no IP entries)",
    );
  });
});

describe("chainVerdict", () => {
  const peer = {} as tls.DetailedPeerCertificate;

  it("is no problem for an authorized socket", () => {
    const socket = { authorized: true, authorizationError: undefined } as unknown as tls.TLSSocket;
    expect(chainVerdict(socket, peer, undefined, undefined)).toBeUndefined();
  });

  it("is OpenSSL's error when it is not about dates or a weak digest", () => {
    const socket = {
      authorized: false,
      authorizationError: "SELF_SIGNED_CERT_IN_CHAIN",
    } as unknown as tls.TLSSocket;
    expect(chainVerdict(socket, peer, undefined, undefined)).toEqual({
      code: "SELF_SIGNED_CERT_IN_CHAIN",
    });
  });
});
