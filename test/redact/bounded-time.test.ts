/**
 * The time redaction takes on hostile text. The JWT shape may fail after its header's run (no "." follows),
 * and it started at any "eyJ" not preceded by [A-Za-z0-9_-] while its runs also take Slack's fullwidth
 * look-alikes "－" and "＿": so in "eyJ－eyJ－…" every "eyJ" started a match whose run read to the end of the
 * word and then failed, quadratic in the length of one word (a quarter of a megabyte took 53 s, a megabyte
 * minutes). It starts only where no run of its characters goes on before it now. And redactThenCut, which
 * every server's text quoted short passes, redacts only 16 KiB past its cut: no one text costs more.
 */
import { describe, expect, it } from "vitest";
import { redactOutput, redactThenCut, registerSecret } from "../../lib/redact/index.ts";

const SECRET = "glpat-bounded-time-0123456789";
registerSecret(SECRET);
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU";

describe("the JWT shape on a near miss", () => {
  it.each([
    ["fullwidth hyphen", "\uff0d"],
    ["fullwidth low line", "\uff3f"],
  ])("a megabyte of eyJ and Slack's %s, one word with no dot, is redacted in a bounded time", (_name, lookAlike) => {
    const hostile = `eyJ${lookAlike}`.repeat(250_000);
    const start = performance.now();
    expect(redactOutput(hostile)).toBe(hostile);
    // About 50 ms here; the bound is for a loaded machine.
    expect(performance.now() - start).toBeLessThan(5_000);
  });

  it("a JWT is still masked where a word starts, and after a look-alike of - or _ exactly as after - or _ themselves", () => {
    expect(redactOutput(`key ${JWT} ＊${JWT}＊`)).toBe("key [REDACTED] ＊[REDACTED]＊");
    for (const [ascii, lookAlike] of [["-", "－"], ["_", "＿"]] as const) {
      expect(redactOutput(`name${lookAlike}${JWT}`)).toBe(redactOutput(`name${ascii}${JWT}`).replace(ascii, lookAlike));
    }
  });
});

describe("redactThenCut on a text far longer than it keeps", () => {
  const BOUND = 16 * 1024;
  const shown = (text: string) => text.replace(/… \(.*\)$/, "");

  it("redacts only 16 KiB past the cut, and says that more follows without counting it", () => {
    const text = `${SECRET} ${"x".repeat(1_000_000)}`;
    const cleanLength = BOUND + 20 - SECRET.length + "[REDACTED]".length;
    expect(redactThenCut(text, 20)).toBe(`[REDACTED] xxxxxxxxx… (more than ${cleanLength - 20} more characters)`);
    // At the bound and short of it, the count is exact.
    expect(redactThenCut(text.slice(0, BOUND + 20), 20)).toBe(`[REDACTED] xxxxxxxxx… (${cleanLength - 20} more characters)`);
  });

  it("shows what a whole text's redaction shows, and no piece of a credential, wherever the credential sits", () => {
    const near = (at: number) => [at - SECRET.length - 1, at - SECRET.length, at - 1, at, at + 1];
    for (const at of [0, 1, ...near(300), ...near(300 + BOUND)]) {
      const text = `${"a".repeat(at)}${SECRET} ${"y".repeat(100_000)}`;
      const out = redactThenCut(text, 300);
      expect(shown(out), `at=${at}`).toBe(redactOutput(text).slice(0, 300));
      expect(out, `at=${at}`).not.toMatch(/glpat-b|bounded-time|0123/);
    }
  });

  it("takes a bounded time on a 64 MB answer of one word, as a server may send", () => {
    const text = `${SECRET} ${"eyJ\uff0d".repeat((64 * 1024 * 1024) / 6)}`;
    const start = performance.now();
    expect(redactThenCut(text, 300)).toMatch(/^\[REDACTED\] (?:eyJ－)+e… \(more than \d+ more characters\)$/);
    // A few milliseconds here (a whole redaction: seconds, or a RangeError from the regexp's stack); the bound is for a loaded machine.
    expect(performance.now() - start).toBeLessThan(1_000);
  });
});
