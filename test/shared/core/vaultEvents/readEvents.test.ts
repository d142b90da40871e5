import { describe, expect, it } from "vitest";
import {
  MAX_SKIP_DETAIL,
  readVaultEvents,
} from "../../../../shared/core/vaultEvents/readEvents.js";
import {
  MAX_EVENT_BYTES,
  MAX_EVENT_ID,
  MAX_EVENTS_PER_DELIVERY,
  type ReadEvent,
  type VaultEvent,
} from "../../../../shared/core/vaultEvents/vaultEvent.js";
import {
  cloudEvent,
  eventGridEvent,
  SAMPLE_CERTIFICATE,
  SAMPLE_EVENT_TIME,
  SAMPLE_EXPIRY,
  SAMPLE_NOT_BEFORE,
  SAMPLE_RESOURCE_GROUP,
  SAMPLE_SUBSCRIPTION,
  SAMPLE_VERSION,
} from "../../../support/vaultEvents.js";

/**
 * Reading what Event Grid delivers (readEvents.ts): both schemas read the same, every bad
 * entry is refused on its own with a bounded, escaped detail naming the field and the rule,
 * and nothing throws.
 */

/** The one item a delivery of `input` reads to. */
function only(input: unknown): ReadEvent {
  const { events, beyond } = readVaultEvents(input);
  expect(beyond).toBe(0);
  expect(events).toHaveLength(1);
  return events[0] as ReadEvent;
}

function eventOf(input: unknown): VaultEvent {
  const read = only(input);
  if (read.kind !== "event") throw new Error(`skipped: ${read.detail}`);
  return read.event;
}

function skipOf(input: unknown): Extract<ReadEvent, { kind: "skipped" }> {
  const read = only(input);
  if (read.kind !== "skipped") throw new Error(`read: ${JSON.stringify(read.event)}`);
  return read;
}

/** An Event Grid event with `data` fields replaced (undefined removes one). */
const withData = (data: Record<string, unknown>) => eventGridEvent({ data });

describe("readVaultEvents: Key Vault's events", () => {
  it("reads the Event Grid sample: every field, the vault lower-cased, the payload's dates as claims", () => {
    const event = eventOf(eventGridEvent({ vaultName: "KV-Contoso", kind: "near-expiry" }));
    expect(event).toEqual({
      id: "6e1e3f3c-7b7a-4c0c-9d6e-2a1b0c9d8e7f",
      kind: "near-expiry",
      schema: "eventgrid",
      vaultName: "kv-contoso",
      certificateName: SAMPLE_CERTIFICATE,
      version: SAMPLE_VERSION,
      subscriptionId: SAMPLE_SUBSCRIPTION,
      resourceGroup: SAMPLE_RESOURCE_GROUP,
      eventTime: SAMPLE_EVENT_TIME,
      claimedNotBefore: SAMPLE_NOT_BEFORE,
      claimedExpiry: SAMPLE_EXPIRY,
    });
  });

  it("CloudEvents and Event Grid forms of the same event read the same (but the schema)", () => {
    for (const kind of ["new-version", "near-expiry", "expired"] as const) {
      const grid = eventOf(eventGridEvent({ kind }));
      const cloud = eventOf(cloudEvent({ kind }));
      expect(cloud).toEqual({ ...grid, schema: "cloudevents" });
      expect(grid.kind).toBe(kind);
    }
  });

  it("takes one object, an array, a JSON string, a Buffer and a Uint8Array alike", () => {
    const one = eventGridEvent();
    const expected = eventOf(one);
    const json = JSON.stringify([one, cloudEvent({ id: "b" })]);
    for (const input of [
      json,
      Buffer.from(json),
      new TextEncoder().encode(json),
      JSON.parse(json),
    ]) {
      const { events, beyond } = readVaultEvents(input);
      expect(beyond).toBe(0);
      expect(events.map((e) => e.kind)).toEqual(["event", "event"]);
      expect(events[0]).toEqual({ kind: "event", event: expected });
    }
    expect(eventOf(Buffer.from(JSON.stringify(one)))).toEqual(expected);
    expect(readVaultEvents("[]")).toEqual({ events: [], beyond: 0 });
  });

  it("NBF and EXP may be absent or null; an unreadable eventTime is left out", () => {
    const event = eventOf(
      eventGridEvent({ notBefore: null, data: { EXP: undefined, Id: undefined } }),
    );
    expect(event.claimedNotBefore).toBeUndefined();
    expect(event.claimedExpiry).toBeUndefined();
    const late = eventOf({ ...eventGridEvent(), eventTime: "yesterday" });
    expect(late.eventTime).toBeUndefined();
  });

  it("names compare without case: the topic's vault, VaultName and Id", () => {
    const topic = eventGridEvent().topic as string;
    const event = eventOf({
      ...withData({
        VaultName: "KV-CONTOSO",
        Id: `HTTPS://kv-contoso.VAULT.azure.net/certificates/WWW-contoso-example/${SAMPLE_VERSION.toUpperCase()}`,
      }),
      topic: topic.toUpperCase().replace("SUBSCRIPTIONS", "subscriptions"),
    });
    expect(event.vaultName).toBe("kv-contoso");
    // The subscription is lower-cased; the resource group is kept as written.
    expect(event.subscriptionId).toBe(SAMPLE_SUBSCRIPTION);
    expect(event.resourceGroup).toBe("RG-CERTS");
  });

  it("an Id in a sovereign cloud's vault suffix agrees", () => {
    const id = `https://kv-contoso.vault.azure.cn/certificates/${SAMPLE_CERTIFICATE}/${SAMPLE_VERSION}`;
    expect(eventOf(withData({ Id: id })).version).toBe(SAMPLE_VERSION);
  });
});

describe("readVaultEvents: each rule refuses its entry, naming the field", () => {
  const cases: readonly [string, unknown, RegExp][] = [
    ["not an object", '"just text"', /^the event: must be a JSON object/],
    ["null", null, /^the event: must be a JSON object/],
    ["an id missing", { ...eventGridEvent(), id: undefined }, /^id: must be a string of 1-128/],
    ["an empty id", eventGridEvent({ id: "" }), /^id: must be a string/],
    ["an id too long", eventGridEvent({ id: "x".repeat(MAX_EVENT_ID + 1) }), /^id: must be/],
    [
      "a topic of another provider",
      {
        ...eventGridEvent(),
        topic: `/subscriptions/${SAMPLE_SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/x`,
      },
      /^topic: must be \/subscriptions\//,
    ],
    [
      "a subscription that is no GUID",
      eventGridEvent({ subscriptionId: "not-a-guid" }),
      /^topic: must be/,
    ],
    [
      "a resource group ending in a period",
      eventGridEvent({ resourceGroup: "rg." }),
      /^topic: must be/,
    ],
    [
      "a CloudEvents source missing",
      { ...cloudEvent(), source: undefined },
      /^source: must be .* \(absent\)/,
    ],
    [
      "a topic's vault that is no vault name",
      {
        ...eventGridEvent(),
        topic: (eventGridEvent().topic as string).replace("kv-contoso", "kv_contoso"),
      },
      /^topic: the vault must be a Key Vault name/,
    ],
    [
      "data missing",
      { ...eventGridEvent(), data: undefined },
      /^data: must be a JSON object \(absent\)/,
    ],
    [
      "data an array",
      { ...eventGridEvent(), data: [] },
      /^data: must be a JSON object \(an array\)/,
    ],
    [
      "a bad VaultName",
      withData({ VaultName: "a" }),
      /^data\.VaultName: must be a Key Vault name \(3-24 letters, digits, hyphens\) \("a"\)/,
    ],
    [
      "VaultName not the topic's",
      withData({ VaultName: "kv-other" }),
      /^data\.VaultName: must be the topic's vault "kv-contoso" \("kv-other"\)/,
    ],
    [
      "a secret's event typed as a certificate's",
      withData({ ObjectType: "Secret" }),
      /^data\.ObjectType: must be "Certificate" \("Secret"\)/,
    ],
    [
      "ObjectName with a slash",
      withData({ ObjectName: "a/b" }),
      /^data\.ObjectName: must be a certificate name/,
    ],
    [
      "ObjectName of 128 characters",
      withData({ ObjectName: "a".repeat(128), Id: undefined }),
      /^data\.ObjectName:/,
    ],
    [
      "Version with a dot",
      withData({ Version: "1.2" }),
      /^data\.Version: must be a version \(1-64 letters and digits\)/,
    ],
    [
      "Version of 65 characters",
      withData({ Version: "a".repeat(65), Id: undefined }),
      /^data\.Version:/,
    ],
    [
      "an Id of another vault",
      withData({
        Id: `https://kv-other.vault.azure.net/certificates/${SAMPLE_CERTIFICATE}/${SAMPLE_VERSION}`,
      }),
      /^data\.Id: must be https:\/\/\{vault\}/,
    ],
    [
      "an Id of another certificate",
      withData({ Id: `https://kv-contoso.vault.azure.net/certificates/other/${SAMPLE_VERSION}` }),
      /^data\.Id:/,
    ],
    [
      "an Id of another version",
      withData({ Id: `https://kv-contoso.vault.azure.net/certificates/${SAMPLE_CERTIFICATE}/abc` }),
      /^data\.Id:/,
    ],
    [
      "an Id of a secret",
      withData({
        Id: `https://kv-contoso.vault.azure.net/secrets/${SAMPLE_CERTIFICATE}/${SAMPLE_VERSION}`,
      }),
      /^data\.Id:/,
    ],
    ["an Id that is a number", withData({ Id: 7 }), /^data\.Id: .*\(7\)$/],
    [
      "EXP as text",
      withData({ EXP: "1700000000" }),
      /^data\.EXP: must be Unix seconds \(a number\) or null/,
    ],
    ["NBF out of any date's range", withData({ NBF: 1e300 }), /^data\.NBF: must be Unix seconds/],
    [
      "an eventType missing",
      { ...eventGridEvent(), eventType: undefined },
      /^eventType: must be a string/,
    ],
    ["a CloudEvents type missing", { ...cloudEvent(), type: 3 }, /^type: must be a string/],
    [
      "another specversion",
      { ...cloudEvent(), specversion: "0.3" },
      /^specversion: must be "1\.0" \("0\.3"\)/,
    ],
  ];

  it.each(cases)("%s", (_, input, detail) => {
    const skip = skipOf(input);
    expect(skip.reason).toBe("malformed");
    expect(skip.detail).toMatch(detail);
    expect(skip.detail.length).toBeLessThanOrEqual(MAX_SKIP_DETAIL);
  });

  it("a skipped event keeps its id when one could be read", () => {
    expect(skipOf(withData({ Version: "1.2" })).id).toBe("6e1e3f3c-7b7a-4c0c-9d6e-2a1b0c9d8e7f");
    expect(skipOf({ ...eventGridEvent(), id: undefined }).id).toBeUndefined();
    const long = skipOf(eventGridEvent({ id: "x".repeat(5_000) }));
    expect(long.id?.length).toBeLessThanOrEqual(MAX_EVENT_ID);
  });

  it("other event types, Key Vault's own included, are unknown-type, whatever else they carry", () => {
    for (const type of [
      "Microsoft.KeyVault.SecretNewVersionCreated",
      "Microsoft.KeyVault.KeyNearExpiry",
      "Microsoft.Storage.BlobCreated",
    ]) {
      const skip = skipOf({ ...eventGridEvent(), eventType: type, data: { ObjectType: "Secret" } });
      expect(skip).toMatchObject({
        reason: "unknown-type",
        id: "6e1e3f3c-7b7a-4c0c-9d6e-2a1b0c9d8e7f",
      });
      expect(skip.detail).toBe(`event type "${type}" is not one certsched takes`);
      expect(skipOf({ ...cloudEvent(), type }).reason).toBe("unknown-type");
    }
  });

  it("a string that is not JSON is one malformed item; so are bytes that are not", () => {
    for (const input of ['[{"id": "a",', Buffer.from("{{{"), "", "\u001b[31m"]) {
      expect(only(input)).toEqual({
        kind: "skipped",
        reason: "malformed",
        detail: "the delivery is not JSON",
      });
    }
  });
});

describe("readVaultEvents: bounds", () => {
  /** An event whose JSON is exactly `bytes` long (padded in a field nothing reads). */
  function eventOfBytes(bytes: number): Record<string, unknown> {
    const base = { ...eventGridEvent(), pad: "" };
    const size = Buffer.byteLength(JSON.stringify(base));
    return {
      ...base,
      pad: "é".repeat(Math.floor((bytes - size) / 2)) + "a".repeat((bytes - size) % 2),
    };
  }

  it("an event of exactly MAX_EVENT_BYTES is read; one byte more is refused", () => {
    const at = eventOfBytes(MAX_EVENT_BYTES);
    expect(Buffer.byteLength(JSON.stringify(at))).toBe(MAX_EVENT_BYTES);
    expect(only(at).kind).toBe("event");
    const over = eventOfBytes(MAX_EVENT_BYTES + 1);
    expect(Buffer.byteLength(JSON.stringify(over))).toBe(MAX_EVENT_BYTES + 1);
    expect(skipOf(over).detail).toBe(
      `the event: must be at most ${MAX_EVENT_BYTES} bytes of JSON (it has ${MAX_EVENT_BYTES + 1})`,
    );
  });

  it("an event of 1 MB is refused with a short detail, and its neighbours are read", () => {
    const huge = eventGridEvent({ id: "huge", data: { Blob: "\n".repeat(1_048_576) } });
    const { events } = readVaultEvents(
      JSON.stringify([eventGridEvent({ id: "a" }), huge, cloudEvent({ id: "b" })]),
    );
    expect(events.map((e) => e.kind)).toEqual(["event", "skipped", "event"]);
    const skip = events[1] as Extract<ReadEvent, { kind: "skipped" }>;
    expect(skip).toMatchObject({ reason: "malformed", id: "huge" });
    expect(skip.detail).toBe(
      `the event: must be at most ${MAX_EVENT_BYTES} bytes of JSON (it has more than ${10 * MAX_EVENT_BYTES})`,
    );
  });

  it("10,000 events in one delivery are all read; the 10,001st is counted in beyond", () => {
    const many = Array.from({ length: MAX_EVENTS_PER_DELIVERY + 1 }, (_, i) =>
      eventGridEvent({ id: `e${i}`, version: `v${i}` }),
    );
    const { events, beyond } = readVaultEvents(JSON.stringify(many));
    expect(events).toHaveLength(MAX_EVENTS_PER_DELIVERY);
    expect(beyond).toBe(1);
    expect(events.every((e) => e.kind === "event")).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: { id: "e9999", version: "v9999" } });
    expect(readVaultEvents(many.slice(0, MAX_EVENTS_PER_DELIVERY)).beyond).toBe(0);
  });

  it("control and bidi characters in names are escaped in every detail and id", () => {
    const evil = "kv\u001b]0;pwned\u0007\n\u202eevil";
    const reads = [
      skipOf(withData({ VaultName: evil })),
      skipOf(withData({ ObjectName: evil })),
      skipOf({ ...eventGridEvent(), eventType: evil }),
      skipOf(eventGridEvent({ id: `id\n${evil}`, data: { Version: evil } })),
    ];
    for (const read of reads) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
      const control = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
      expect(read.detail).not.toMatch(control);
      expect(read.detail).toContain("\\u{1b}]0;pwned\\u{07}\\u{0a}\\u{202e}evil");
      expect(read.id ?? "").not.toMatch(control);
    }
    expect(reads[3]?.id).toBe("id\\u{0a}kv\\u{1b}]0;pwned\\u{07}\\u{0a}\\u{202e}evil");
  });

  it("values nothing else makes are refused, never thrown: a cycle, a BigInt, a throwing getter", () => {
    const cyclic: Record<string, unknown> = eventGridEvent();
    cyclic.self = cyclic;
    const getter = Object.defineProperty({ ...eventGridEvent() }, "data", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    const { events } = readVaultEvents([
      cyclic,
      { ...eventGridEvent(), n: 1n },
      getter,
      eventGridEvent(),
    ]);
    expect(events.map((e) => (e.kind === "skipped" ? e.detail : "read"))).toEqual([
      "the event could not be read as JSON",
      "the event could not be read as JSON",
      "the event could not be read as JSON",
      "read",
    ]);
    const trapped = [eventGridEvent()];
    Object.defineProperty(trapped, 1, {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    expect(readVaultEvents(trapped).events.map((e) => e.kind)).toEqual(["event", "skipped"]);
    expect(only(undefined).kind).toBe("skipped");
    // A sparse array's holes are entries: one item each, never a hole in what is read.
    const holed: unknown[] = [eventGridEvent()];
    holed[2] = eventGridEvent();
    const sparse = readVaultEvents(holed).events;
    expect(sparse).toHaveLength(3);
    expect(sparse.map((e) => e?.kind)).toEqual(["event", "skipped", "event"]);
    expect(only(42).kind).toBe("skipped");
  });
});
