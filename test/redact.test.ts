import { describe, expect, it } from "vitest";
import { MIN_FRAGMENT, redactOutput, redactStrings, redactThenCut, registerSecret, SecretRegistry } from "../lib/redact/index.ts";

const SECRET = "glpat-redact-unit-0123456789abcdef";
registerSecret(SECRET);

const fragments = (text: string) =>
  Array.from({ length: SECRET.length - MIN_FRAGMENT + 1 }, (_, i) => SECRET.slice(i, i + MIN_FRAGMENT)).filter((g) => text.includes(g));

describe("redactThenCut", () => {
  it("leaves no fragment of a credential at any cut length, wherever the credential sits", () => {
    for (const before of [0, 1, 5, 17]) {
      const text = `${"a ".repeat(before).slice(0, before)}${SECRET} and then some more text after it`;
      for (let max = 0; max <= text.length + 1; max++) {
        const out = redactThenCut(text, max);
        expect(fragments(out), `before=${before} max=${max}`).toEqual([]);
      }
    }
  });

  it("says how much was cut, and never splits a surrogate pair", () => {
    expect(redactThenCut("zzzzzz", 3)).toBe("zzz… (3 more characters)");
    expect(redactThenCut("ab😀cd", 3)).toBe("ab… (4 more characters)");
    expect(redactThenCut("short", 10)).toBe("short");
  });
});

describe("SecretRegistry", () => {
  it("masks a credential whole, and any 6-character fragment of one, but not shorter runs", () => {
    expect(redactOutput(`token ${SECRET} end`)).toBe("token [REDACTED] end");
    expect(redactOutput(`cut: ${SECRET.slice(0, 9)}`)).toBe("cut: [REDACTED]");
    expect(redactOutput(`tail: ${SECRET.slice(-6)}!`)).toBe("tail: [REDACTED]!");
    expect(redactOutput(`short: ${SECRET.slice(0, 5)}`)).toBe(`short: ${SECRET.slice(0, 5)}`);
  });

  it("masks 4–5 character credentials whole and ignores shorter ones", () => {
    const registry = new SecretRegistry();
    registry.add("abcd");
    registry.add("xyz");
    expect(registry.redact("abcd xyz abcde")).toBe("[REDACTED] xyz [REDACTED]e");
  });
});

describe("redactStrings", () => {
  it("redacts every string of a payload, nested anywhere, and leaves the rest of it as it was", () => {
    const payload = { text: `"${SECRET}"`, blocks: [{ n: 3, items: [SECRET.slice(2), true, null] }] };
    const out = redactStrings(payload);
    expect(fragments(JSON.stringify(out))).toEqual([]);
    expect(out.blocks[0]!.n).toBe(3);
    expect(out.blocks[0]!.items.slice(1)).toEqual([true, null]);
    // Strings are masked before serialising, so the JSON stays valid whatever the credential sat beside.
    expect(JSON.parse(JSON.stringify(out)).text).toBe('"[REDACTED]"');
  });
});
