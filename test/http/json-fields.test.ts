/**
 * Keeping only the fields a caller reads of a JSON answer (lib/http/json-fields.ts): what is passed over
 * is never parsed, so it counts in no bound (json-size.ts), and what is kept parses as JSON.parse would
 * parse it in the whole answer. A text the scan cannot follow comes back as it was.
 */
import { describe, expect, it } from "vitest";
import { keepFields } from "../../lib/http/json-fields.ts";
import { beyondBounds } from "../../lib/http/json-size.ts";

const FIELDS = { keep: ["id", "name", "tags"], in: "data" };
const pick = (o: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));

describe("keepFields", () => {
  it("keeps the named fields of each item, and every other member of the answer as it is", () => {
    const answer = { data: [{ id: "1", name: "a", nodes: [{ p: { x: [1, 2] } }], tags: [{ name: "t" }] }, { nodes: [], id: "2" }], nextCursor: "abc" };
    expect(JSON.parse(keepFields(JSON.stringify(answer), FIELDS))).toEqual({ data: [{ id: "1", name: "a", tags: [{ name: "t" }] }, { id: "2" }], nextCursor: "abc" });
  });

  it("parses as JSON.parse would the whole answer, whitespace, escapes and strings full of brackets and quotes included", () => {
    const items = [
      { id: "q\"}]", name: "[{\\", code: "function f() { return [\"}\", '{']; }", tags: [] },
      { "i\u0064": "escaped key", nodes: "\"}\\\"]", n: -1.5e-3, t: true, f: false, z: null },
      { id: "dup", id2: 1 },
    ];
    const text = `{ "data" : [\n ${items.map((i) => JSON.stringify(i, null, 2)).join(" ,\n")} ] , "nextCursor" : null }`;
    expect(JSON.parse(keepFields(text, FIELDS))).toEqual({ data: items.map((i) => pick(i, FIELDS.keep)), nextCursor: null });
    // A key written twice: the last one, as JSON.parse takes it.
    expect(JSON.parse(keepFields(`{"data":[{"id":"first","id":"last"}]}`, FIELDS))).toEqual({ data: [{ id: "last" }] });
    // A key written with an escape is the key it spells.
    expect(JSON.parse(keepFields(`{"data":[{"\\u0069d":"7","x":1}]}`, FIELDS))).toEqual({ data: [{ id: "7" }] });
  });

  it("of the answer's object itself when no array is named", () => {
    expect(JSON.parse(keepFields(`{"id":"9","nodes":[[[]]],"name":"n"}`, { keep: ["id", "name"] }))).toEqual({ id: "9", name: "n" });
  });

  it("passes over a million arrays in an item's other fields: what is kept is within every bound", () => {
    const big = `{"data":[{"id":"1","nodes":[${Array<string>(1_000_001).fill("[]").join(",")}]}],"nextCursor":null}`;
    expect(beyondBounds(big)).toMatch(/objects and arrays/);
    const kept = keepFields(big, FIELDS);
    expect(beyondBounds(kept)).toBeUndefined();
    expect(JSON.parse(kept)).toEqual({ data: [{ id: "1" }], nextCursor: null });
  });

  it("gives back as it was a text it cannot follow: cut short, not an object, trailing text", () => {
    const whole = JSON.stringify({ data: [{ id: "1", nodes: ["a", { b: "c" }] }], nextCursor: null });
    for (let cut = 1; cut < whole.length; cut++) {
      const part = whole.slice(0, cut);
      expect(() => JSON.parse(keepFields(part, FIELDS))).toThrow();
    }
    for (const text of ["[1,2]", "\"x\"", "null", "", "<html>sign in</html>", `${whole} x`, `{"data":[{"id":1}],}`]) expect(keepFields(text, FIELDS)).toBe(text);
  });

  it("keeps items that are not objects as they are, for the caller to judge", () => {
    expect(JSON.parse(keepFields(`{"data":[1,"two",null,[3]],"x":{}}`, FIELDS))).toEqual({ data: [1, "two", null, [3]], x: {} });
    expect(JSON.parse(keepFields(`{"data":{"id":1,"nodes":2}}`, FIELDS))).toEqual({ data: { id: 1, nodes: 2 } });
  });
});
