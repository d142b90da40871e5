import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { publicOnlyLookup } from "../../../../shared/adapters/probes/publicOnlyLookup.js";
import { NOT_PUBLIC_CODE } from "../../../../shared/core/verification/publicAddress.js";

/** What the lookup called back with. Names used here resolve without a network. */
function lookup(hostname: string, options: { all?: boolean; family?: number } = {}) {
  return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: unknown }>(
    (resolve) => {
      publicOnlyLookup(hostname, options, (error, address, family) =>
        resolve({ error, address, family }),
      );
    },
  );
}

describe("publicOnlyLookup", () => {
  it("a public address is passed on as the socket asks: one address", async () => {
    expect(await lookup("8.8.8.8")).toEqual({ error: null, address: "8.8.8.8", family: 4 });
    expect(await lookup("2606:4700:4700::1111")).toEqual({
      error: null,
      address: "2606:4700:4700::1111",
      family: 6,
    });
  });

  it("or every address, when asked for all", async () => {
    const { error, address } = await lookup("8.8.8.8", { all: true });
    expect(error).toBeNull();
    expect(address as LookupAddress[]).toEqual([{ address: "8.8.8.8", family: 4 }]);
  });

  it.each([
    "127.0.0.1",
    "localhost",
    "10.1.2.3",
    "192.168.0.1",
    "169.254.169.254",
    "::1",
    "::ffff:127.0.0.1",
    "0.0.0.0",
  ])("%s is refused, naming the host, before any connection", async (host) => {
    const { error, address } = await lookup(host);
    expect(error?.code).toBe(NOT_PUBLIC_CODE);
    expect(error?.message).toBe(`${host} resolves to an address that is not public`);
    expect(address).toBe("");
  });

  it("a name that does not resolve keeps the resolver's own error", async () => {
    const { error, address } = await lookup("no-such-host.invalid");
    expect(error).toBeInstanceOf(Error);
    expect(error?.code).not.toBe(NOT_PUBLIC_CODE);
    expect(address).toBe("");
  });
});
