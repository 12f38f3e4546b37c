import { describe, expect, it } from "vitest";
import { StatementBatcher } from "../src/modules/availability/batch.ts";

/** A statement that answers when the test says: each call is recorded with what it was sent. */
function controlledStatement() {
  const calls: { items: string[]; answer: () => void; fail: (error: Error) => void }[] = [];
  const batcher = new StatementBatcher<string, string>(
    (items) =>
      new Promise((resolve, reject) => {
        calls.push({
          items: [...items],
          // An item named "nobody" has no row: its result is undefined.
          answer: () => {
            resolve(items.map((item) => (item === "nobody" ? undefined : `row of ${item}`)));
          },
          fail: reject,
        });
      }),
  );
  return { batcher, calls };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("statement batcher (the fast path's lookups)", () => {
  it("reads the items of one turn with one statement, each answered with its own row", async () => {
    const { batcher, calls } = controlledStatement();
    const answers = Promise.all(["a", "nobody", "b"].map((item) => batcher.lookup(item)));
    expect(calls).toHaveLength(0); // sent at the end of the turn, after the last item arrived
    await turn();
    expect(calls.map((c) => c.items)).toEqual([["a", "nobody", "b"]]);
    calls[0]?.answer();
    expect(await answers).toEqual(["row of a", undefined, "row of b"]);
  });

  it("never adds an item to a statement under way: it goes in a statement of its own turn, sent after it arrived", async () => {
    const { batcher, calls } = controlledStatement();
    const first = batcher.lookup("a");
    await turn();
    expect(calls.map((c) => c.items)).toEqual([["a"]]);
    // Arrivals while the first statement is under way: each turn's in its own statement, sent
    // at the end of that turn — none joins the first, whose snapshot may predate them.
    const second = [batcher.lookup("b"), batcher.lookup("c")];
    expect(calls).toHaveLength(1);
    await turn();
    const third = batcher.lookup("d");
    await turn();
    expect(calls.map((c) => c.items)).toEqual([["a"], ["b", "c"], ["d"]]);
    // Answered in any order, each with its own rows.
    calls[2]?.answer();
    calls[0]?.answer();
    calls[1]?.answer();
    expect(await Promise.all([first, ...second, third])).toEqual(["row of a", "row of b", "row of c", "row of d"]);
  });

  it("a failed statement fails only its own items", async () => {
    const { batcher, calls } = controlledStatement();
    const first = batcher.lookup("a");
    await turn();
    const second = batcher.lookup("b");
    await turn();
    calls[0]?.fail(new Error("database away"));
    await expect(first).rejects.toThrow("database away");
    calls[1]?.answer();
    expect(await second).toBe("row of b");
  });

  it("a statement that throws before it is sent fails its items, and the batcher goes on", async () => {
    let throwNext = true;
    const batcher = new StatementBatcher<string, string>((items) => {
      if (throwNext) {
        throwNext = false;
        throw new Error("no connection");
      }
      return Promise.resolve(items.map((item) => `row of ${item}`));
    });
    await expect(batcher.lookup("a")).rejects.toThrow("no connection");
    expect(await batcher.lookup("b")).toBe("row of b");
  });
});
