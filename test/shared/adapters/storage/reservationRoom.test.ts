import { describe, expect, it } from "vitest";
import { Room } from "../../../../shared/adapters/storage/reservationRoom.js";

describe("Room", () => {
  it("lets a renewal use the budget to the last request, without asking the need", async () => {
    let asked = 0;
    const room = new Room("renewal", 10, async () => {
      asked += 1;
      return 0;
    });
    expect(await room.allows(10)).toBe(true);
    expect(await room.allows(11)).toBe(false);
    expect(asked).toBe(0);
    expect(room.need).toBeUndefined();
  });

  it("refuses a read past 80 % without asking the need", async () => {
    let asked = 0;
    const room = new Room("read", 10, async () => {
      asked += 1;
      return 0;
    });
    expect(await room.allows(9)).toBe(false);
    expect(asked).toBe(0);
  });

  it("asks the need once for a read below 80 %, and keeps room for it", async () => {
    let asked = 0;
    const room = new Room("read", 10, async () => {
      asked += 1;
      return 3;
    });
    expect(await room.allows(7)).toBe(true);
    expect(await room.allows(8)).toBe(false);
    expect(asked).toBe(1);
    expect(room.need).toBe(3);
  });
});
