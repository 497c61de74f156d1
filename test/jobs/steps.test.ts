/**
 * stepInParts (lib/jobs/steps.ts), by itself: a result with an entry per stray recorded perStep entries
 * a step, read back whole, and worked anew where an attempt failed or an execution resumed between parts.
 */
import { expect, it } from "vitest";
import { direct, partEnds, stepInParts, type Steps } from "../../lib/jobs/steps.ts";

const items = { of: (r: { items: number[] }) => r.items, with: (r: { items: number[] }, items: number[]) => ({ ...r, items }) };

it("records perStep entries a step and gives them all back, in order", async () => {
  const recorded: [string, unknown][] = [];
  const steps: Steps = { ...direct, perStep: 2, step: async (name, run) => (recorded.push([name, await run(1)]), recorded.at(-1)![1] as never) };
  const { entries, again } = await stepInParts(steps, "x", async () => ({ items: [1, 2, 3, 4, 5] }), items);
  expect(entries).toEqual([1, 2, 3, 4, 5]);
  expect(again).toEqual([]);
  expect(recorded).toEqual([["x", { items: [1, 2], parts: 3, ends: [2, 4, 5] }], ["x 2", { part: [3, 4] }], ["x 3", { part: [5] }]]);
});

it("a step whose first attempt failed works again when it is attempted again", async () => {
  let calls = 0;
  const steps: Steps = { ...direct, perStep: 2, step: async (_name, run) => run(1).catch(() => run(2)) };
  const work = async () => {
    if (++calls === 1) throw new Error("cut off by the invocation's deadline");
    return { items: [1, 2, 3] };
  };
  expect((await stepInParts(steps, "x", work, items)).entries).toEqual([1, 2, 3]);
  expect(calls).toBe(2);
});

it("a result recorded before parts, without `parts`, holds every entry: no further step", async () => {
  const names: string[] = [];
  const steps: Steps = { ...direct, perStep: 2, step: async (name) => (names.push(name), { items: [1, 2, 3] } as never) };
  expect((await stepInParts(steps, "x", async () => ({ items: [] as number[] }), items)).entries).toEqual([1, 2, 3]);
  expect(names).toEqual(["x"]);
});

it("cuts parts by the bytes of their entries too, so long names no compression shrinks still fit a checkpoint", async () => {
  const recorded: [string, unknown][] = [];
  const steps: Steps = { ...direct, perStep: 100, perStepBytes: 25, step: async (name, run) => (recorded.push([name, await run(1)]), recorded.at(-1)![1] as never) };
  const long = (n: number) => `${n}`.padEnd(10, "x");
  const { entries } = await stepInParts(steps, "x", async () => ({ items: [1, 2, 3, 4, 5].map(long) }), { of: (r: { items: string[] }) => r.items, with: (r, items: string[]) => ({ ...r, items }) });
  expect(entries).toEqual([1, 2, 3, 4, 5].map(long));
  // 12 bytes of JSON each: two fit in 25.
  expect(recorded.map(([name]) => name)).toEqual(["x", "x 2", "x 3"]);
  // One larger than the bound alone still makes a part of its own.
  expect(partEnds(["x".repeat(100), "y", "z"], { perStep: 10, perStepBytes: 25 })).toEqual([1, 3]);
  expect(partEnds([], { perStep: 10, perStepBytes: 25 })).toEqual([0]);
});

it("goes on from a first part recorded before parts were cut by bytes (no ends): perStep entries a part, whatever their bytes", async () => {
  // The first part replayed from an execution begun under the earlier code; the next ones run now.
  const replayed: Record<string, unknown> = { x: { items: [1, 2], parts: 3 } };
  const steps: Steps = { ...direct, perStep: 2, perStepBytes: 1, step: async (name, run) => (replayed[name] ?? (await run(1))) as never };
  const { entries } = await stepInParts(steps, "x", async () => ({ items: [1, 2, 3, 4, 5] }), items);
  expect(entries).toEqual([1, 2, 3, 4, 5]);
});
