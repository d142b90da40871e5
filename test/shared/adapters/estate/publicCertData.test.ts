import { afterAll, describe, expect, it } from "vitest";
import { certificateOfPublicData } from "../../../../shared/adapters/estate/publicCertData.js";
import { type Made, opensslBags } from "../../../support/opensslBags.js";

/*
 * Every certificate here is made by openssl, and every expected thumbprint and date is openssl's
 * own reading of it: the PKCS#7 bags are what `openssl crl2pkcs7` writes, as a gateway's
 * publicCertData holds them.
 */

const bags = opensslBags();
afterAll(() => bags.close());

const CA = ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"];

const www = bags.selfSigned("www", {
  key: "rsa:2048",
  subject: "/CN=www.contoso.test/O=Contoso",
  days: 90,
  extensions: ["subjectAltName=DNS:WWW.contoso.test,DNS:api.contoso.test,DNS:api.contoso.test"],
});
const root = bags.selfSigned("root", {
  subject: "/CN=Contoso Root/O=Contoso",
  days: 365,
  extensions: CA,
});
const intermediate = bags.issued("intermediate", root, {
  subject: "/CN=Contoso Issuing/O=Contoso",
  days: 200,
  extensions: CA,
});
const shop = bags.issued("shop", intermediate, {
  key: "rsa:2048",
  subject: "/CN=shop.contoso.test",
  days: 60,
  extensions: ["subjectAltName=DNS:Pay.Contoso.test,DNS:shop.contoso.test"],
});

/** What certificateOfPublicData should read of a certificate openssl made. */
function readingOf(made: Made) {
  return { thumbprint: made.thumbprint, notBefore: made.notBefore, expiresAt: made.notAfter };
}

describe("certificateOfPublicData: a gateway certificate's public data", () => {
  it("a self-signed leaf in PKCS#7: openssl's thumbprint and dates, its names", () => {
    expect(www.thumbprint).toMatch(/^[0-9A-F]{40}$/);
    expect(certificateOfPublicData(bags.pkcs7([www]))).toEqual({
      ...readingOf(www),
      issuer: "CN=www.contoso.test, O=Contoso",
      subject: "CN=www.contoso.test, O=Contoso",
      hostNames: ["www.contoso.test", "api.contoso.test"],
      moreHostNames: 0,
    });
  });

  it("the same certificate as plain DER base64 reads the same", () => {
    expect(certificateOfPublicData(bags.der(www))).toEqual(
      certificateOfPublicData(bags.pkcs7([www])),
    );
    expect(certificateOfPublicData(bags.der(shop))).toMatchObject(readingOf(shop));
  });

  it.each([
    ["leaf first", [shop, intermediate, root]],
    ["leaf last", [root, intermediate, shop]],
    ["leaf in the middle", [intermediate, shop, root]],
    ["root missing", [intermediate, shop]],
  ])("a chain: the leaf, whatever its place in the bag (%s)", (_, chain) => {
    expect(certificateOfPublicData(bags.pkcs7(chain))).toEqual({
      ...readingOf(shop),
      issuer: "CN=Contoso Issuing, O=Contoso",
      subject: "CN=shop.contoso.test",
      hostNames: ["pay.contoso.test", "shop.contoso.test"],
      moreHostNames: 0,
    });
  });

  it("an EC (prime256v1) certificate in PKCS#7, which node-forge's own readers refuse", () => {
    const ec = bags.selfSigned("ec", {
      key: "prime256v1",
      subject: "/CN=ec.contoso.test",
      extensions: ["subjectAltName=DNS:ec.contoso.test"],
    });
    expect(certificateOfPublicData(bags.pkcs7([ec]))).toEqual({
      ...readingOf(ec),
      issuer: "CN=ec.contoso.test",
      subject: "CN=ec.contoso.test",
      hostNames: ["ec.contoso.test"],
      moreHostNames: 0,
    });
  });

  it("two certificates that issued neither: the first", () => {
    expect(certificateOfPublicData(bags.pkcs7([www, shop]))?.thumbprint).toBe(www.thumbprint);
    expect(certificateOfPublicData(bags.pkcs7([shop, www]))?.thumbprint).toBe(shop.thumbprint);
  });

  it("base64 wrapped in lines, as openssl and PEM write it, is read", () => {
    const wrapped = bags.pkcs7([www]).replace(/.{64}/g, "$&\r\n");
    expect(wrapped).toContain("\r\n");
    expect(certificateOfPublicData(wrapped)?.thumbprint).toBe(www.thumbprint);
  });

  it("at most 20 certificates of a bag are read: a leaf after them is not seen", () => {
    const roots = Array.from({ length: 20 }, () => root);
    expect(certificateOfPublicData(bags.pkcs7([...roots, intermediate, shop]))?.thumbprint).toBe(
      root.thumbprint,
    );
    expect(certificateOfPublicData(bags.pkcs7([...roots.slice(1), shop]))?.thumbprint).toBe(
      shop.thumbprint,
    );
  });

  it("names from the certificate are shown as text, control characters escaped", () => {
    const odd = bags.selfSigned("odd", {
      subject: "/CN=a\u0001b\u001b[31m<script>/O=x, y",
      extensions: ["subjectAltName=DNS:<b>.test"],
    });
    const read = certificateOfPublicData(bags.pkcs7([odd]));
    // Node writes a name as RFC 4514 escapes it; shown() leaves that as it is.
    expect(read?.subject).toBe("CN=a\\01b\\1B[31m\\<script\\>, O=x\\, y");
    // A CN is a host name as written: its control characters escaped by shown(), HTML kept as text.
    expect(read?.hostNames).toEqual(["<b>.test", "a\\u{01}b\\u{1b}[31m<script>"]);
  });

  it("a DNS name with a comma comes from Node quoted, and is read whole", () => {
    const comma = bags.selfSigned("comma", {
      subject: "/CN=c.test",
      extensions: ["subjectAltName=@alt", "[alt]", "DNS.1=a,b.test", "DNS.2=d.test"],
    });
    expect(certificateOfPublicData(bags.pkcs7([comma]))?.hostNames).toEqual([
      "a,b.test",
      "d.test",
      "c.test",
    ]);
  });

  it.each([
    ["nothing", undefined],
    ["empty", ""],
    ["blank", "  \n"],
    ["not base64", "<html>not base64</html>"],
    ["base64 of text", Buffer.from("hello, gateway").toString("base64")],
    ["a few bytes", "MIIB"],
    ["cut short", bags.pkcs7([www]).slice(0, 400)],
    ["bad padding", `${bags.der(www)}=`],
    ["oversized", "A".repeat(100_004)],
    [
      "nested deeper than a certificate",
      Buffer.from("3080".repeat(3000), "hex").toString("base64"),
    ],
    ["a bag without certificates", bags.pkcs7([])],
  ])("unreadable (%s): undefined, never a throw", (_, value) => {
    expect(certificateOfPublicData(value)).toBeUndefined();
  });

  it("a bag whose certificate is broken inside: undefined", () => {
    const bytes = Buffer.from(bags.pkcs7([www]), "base64");
    // The certificate's TBS tag, inside the bag, made an INTEGER: still ASN.1, no certificate.
    const at = bytes.indexOf(Buffer.from(Buffer.from(bags.der(www), "base64").subarray(4, 8)));
    expect(at).toBeGreaterThan(0);
    bytes[at] = 0x02;
    expect(certificateOfPublicData(bytes.toString("base64"))).toBeUndefined();
  });
});
