import { TableClient } from "@azure/data-tables";
import { describe, expect, inject, it } from "vitest";
import { memoryEstateStore } from "../../../../shared/adapters/storage/memory/memoryEstate.js";
import { createTableEstateStore } from "../../../../shared/adapters/storage/tableEstate.js";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import { keptOf } from "../../../../shared/core/estate/kept.js";
import { estateReport } from "../../../../shared/core/estate/report.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { uniqueTableName } from "../../../support/app.js";

/** The estate store over Azurite, held to what the memory store does. */

const NOW = new Date("2026-12-02T12:00:00.000Z");
const DAY = 86_400_000;
const SUB = "00000000-0000-0000-0000-000000000001";
const connectionString = () => inject("azuriteTableConnectionString");

function cert(name: string, days: number): EstateCertificate {
  return {
    id: `/subscriptions/${SUB}/resourcegroups/rg/providers/microsoft.network/applicationgateways/agw/sslcertificates/${name}`,
    kind: "application-gateway",
    name,
    subscriptionId: SUB,
    expiresAt: new Date(NOW.getTime() + days * DAY),
    hostNames: [],
    moreHostNames: 0,
    boundTo: [{ kind: "listener", resourceId: "/x/l", hostName: `${name}.contoso.com` }],
    problems: [],
  };
}

const report = (account: string, certificates: EstateCertificate[], at = NOW) =>
  estateReport({
    account,
    discovered: certificates,
    records: [],
    now: at,
    expiringDays: 30,
    problems: [],
    truncated: 0,
  });

describe("the estate store in a table", () => {
  it("keeps nothing before a save; then each account's last report, as the memory store does", async () => {
    const store = createTableEstateStore({
      connectionString: connectionString(),
      tableName: uniqueTableName(),
    });
    const memory = memoryEstateStore();
    expect(await store.last("contoso")).toBeUndefined();
    const first = report("contoso", [cert("a", 3), cert("b", 9), cert("c", 100)]);
    const other = report("fabrikam", [cert("z", 1)]);
    for (const s of [store, memory]) {
      await s.save(first);
      await s.save(other);
    }
    expect(await store.last("contoso")).toEqual(keptOf(first));
    expect(await store.last("fabrikam")).toEqual(keptOf(other));
    expect(await store.last("contoso")).toEqual(await memory.last("contoso"));
    // The next save replaces: a gone entry is deleted, a new one added.
    const later = new Date(NOW.getTime() + DAY);
    const second = report("contoso", [cert("b", 8), cert("d", 2)], later);
    await store.save(second);
    const kept = await store.last("contoso");
    expect(kept?.at).toEqual(later);
    expect(kept?.expiring.map((e) => e.name)).toEqual(["d", "b"]);
  });

  it("holds a thousand expiring certificates (more than one entity could)", async () => {
    const store = createTableEstateStore({
      connectionString: connectionString(),
      tableName: uniqueTableName(),
    });
    const many = Array.from({ length: 1_000 }, (_, i) =>
      cert(`cert-${String(i).padStart(4, "0")}-${"x".repeat(200)}`, 1 + (i % 29)),
    );
    await store.save(report("contoso", many));
    const kept = await store.last("contoso");
    expect(kept?.expiring).toHaveLength(1_000);
    expect(kept?.counts["unmanaged-expiring"]).toBe(1_000);
  });

  it("a row that does not read back is left out, not a crash", async () => {
    const tableName = uniqueTableName();
    const store = createTableEstateStore({ connectionString: connectionString(), tableName });
    await store.save(report("contoso", [cert("a", 3)]));
    const client = TableClient.fromConnectionString(connectionString(), tableName, {
      allowInsecureConnection: true,
    });
    await client.upsertEntity({
      partitionKey: "estate-contoso",
      rowKey: "e-bad",
      kind: "spaceship",
    });
    const kept = await store.last("contoso");
    expect(kept?.expiring.map((e) => e.name)).toEqual(["a"]);
  });

  it("storage that cannot be reached is a STORAGE_UNAVAILABLE naming the table", async () => {
    const store = createTableEstateStore({
      connectionString:
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:1/devstoreaccount1;",
      tableName: "certschedestatedown",
      timeoutMs: 2_000,
    });
    const error = await store.last("contoso").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CertschedError);
    expect((error as CertschedError).code).toBe("STORAGE_UNAVAILABLE");
    expect((error as Error).message).toMatch(/^estate: cannot read table certschedestatedown/);
  });
});
