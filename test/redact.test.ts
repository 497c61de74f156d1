import { describe, expect, it } from "vitest";
import { escapeControls, escapeMarkdown, jsonForTerminal } from "../lib/jobs/escape.ts";
import { csvCell } from "../lib/jobs/render/csv.ts";
import { escapeMrkdwn } from "../lib/jobs/escape.ts";
import { redactError, redactOutput, redactStrings, redactThenCut, registerSecret, SecretRegistry } from "../lib/redact/index.ts";

const SECRET = "glpat-redact-unit-0123456789abcdef";
registerSecret(SECRET);
/** A registered credential that is no token shape, with punctuation every escaper rewrites. */
const ODD = "odd-s3cret_with.punct!&<x>@team#1\"q\\z";
registerSecret(ODD);
/** An AWS session token's length and alphabet (a Lambda's, about 1,000 characters of base64): masked as written and escaped only. */
const SESSION_TOKEN = `IQoJb3JpZ2luX2Vj${"EHoaCWV1LXdlc3QtMSJHMEUCIQD7s+Kq9vLmN8pR2wZ/".repeat(24)}==`;
registerSecret(SESSION_TOKEN);

/** The text with every escaper's marks undone: what a reader of the rendered output would see. */
const unescaped = (text: string) =>
  decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, "%25"))
    .replace(/\\(.)/g, "$1")
    .replaceAll('""', '"')
    .replaceAll("\u200d", "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

describe("redactThenCut", () => {
  it("leaves no piece of a credential at any cut length, wherever the credential sits", () => {
    for (const before of [0, 1, 5, 17]) {
      const text = `${"a ".repeat(before).slice(0, before)}${SECRET} and then some more text after it`;
      for (let max = 0; max <= text.length + 1; max++) {
        const out = redactThenCut(text, max);
        expect(out, `before=${before} max=${max}`).not.toMatch(/glpat|redact-unit|0123|cdef/);
      }
    }
  });

  it("says how much was cut, and never splits a surrogate pair", () => {
    expect(redactThenCut("zzzzzz", 3)).toBe("zzz… (3 more characters)");
    expect(redactThenCut("ab😀cd", 3)).toBe("ab… (4 more characters)");
    expect(redactThenCut("short", 10)).toBe("short");
  });
});

describe("whole credentials only: no output depends on whether a piece of text is part of one", () => {
  it("masks a registered credential whole, and any piece of it exactly as if nothing were registered", () => {
    expect(redactOutput(`token ${SECRET} end`)).toBe("token [REDACTED] end");
    const nothingRegistered = new SecretRegistry();
    for (let length = 1; length < SECRET.length; length++) {
      for (let start = 0; start + length <= SECRET.length; start++) {
        const text = `unexpected argument "${SECRET.slice(start, start + length)}"`;
        // The same text either way: only a piece still shaped like a token (glpat- and 20 more) is masked.
        expect(redactOutput(text)).toBe(nothingRegistered.redact(text));
      }
    }
    expect(redactOutput(`"${SECRET.slice(1)}"`)).toBe(`"${SECRET.slice(1)}"`);
  });

  it("a piece of a credential and a piece of nothing give outputs that differ only by the piece", () => {
    // The attack of issue 28: one guess a command, told apart by whether a mask appears.
    for (const [inside, outside] of [["lpat-r", "lpat-q"], ["unit-0123", "unit-0124"], ["cdef", "cdeg"], ["edact-unit-0123456789abcde", "edact-unit-0123456789abcdX"]]) {
      expect(SECRET.includes(inside!) && !SECRET.includes(outside!)).toBe(true);
      const shown = (word: string) => redactOutput(`enforce takes only --apply, not "${word}"`).replace(word, "WORD");
      expect(shown(inside!)).toBe(shown(outside!));
    }
  });

  it("masks 4 characters and more whole and ignores shorter values", () => {
    const registry = new SecretRegistry();
    registry.add("abcd");
    registry.add("xyz");
    expect(registry.redact("abcd xyz abcde abc")).toBe("[REDACTED] xyz [REDACTED]e abc");
  });
});

describe("a registered credential is masked however an escaper wrote it", () => {
  // Escape first, redact last: each escaper rewrites punctuation the plain credential has.
  const escapers: [string, (text: string) => string][] = [
    ["plain", (t) => t],
    ["terminal", (t) => escapeControls(t)],
    ["Markdown", escapeMarkdown],
    ["Slack mrkdwn", escapeMrkdwn],
    ["JSON", (t) => jsonForTerminal({ t })],
    // warden report shares --format csv: a cell with a quote is quoted, its quotes doubled.
    ["CSV", csvCell],
    ["a URL", encodeURIComponent],
    ["a URL, lower-case hex", (t) => encodeURIComponent(t).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
  ];
  it.each(escapers)("%s", (_name, escape) => {
    for (const secret of [SECRET, ODD, SESSION_TOKEN]) {
      const out = redactOutput(escape(`before ${secret} after`));
      expect(out).toContain("[REDACTED]");
      expect(unescaped(out)).not.toContain(secret);
      expect(out).toMatch(/before/);
      expect(out).toMatch(/after/);
    }
  });
});

describe("a registered credential an encoder escaped, however Warden escaped it again", () => {
  // Encoders that escape all but letters and digits (JSON's \u002d, C's \x2d, HTML's &#45; and &#x2d;), then Warden's own escapers.
  const hex = (char: string, width: number) => char.charCodeAt(0).toString(16).padStart(width, "0");
  const encoders: [string, (char: string) => string][] = [
    ["\\u00HH", (c) => `\\u${hex(c, 4)}`],
    ["\\xHH, upper-case", (c) => `\\x${hex(c, 2).toUpperCase()}`],
    ["&#DD;", (c) => `&#${c.charCodeAt(0)};`],
    ["&#xHH;", (c) => `&#x${hex(c, 2)};`],
  ];
  const escapers = [(t: string) => t, escapeControls, escapeMarkdown, escapeMrkdwn, (t: string) => jsonForTerminal({ t })];
  it.each(encoders)("%s, as it is, or escaped for a terminal, Markdown, Slack or JSON", (_name, encode) => {
    for (const secret of [SECRET, ODD]) {
      const encoded = secret.replace(/[^A-Za-z0-9]/g, encode);
      for (const escape of escapers) expect(redactOutput(escape(`before ${encoded} after`))).toBe(escape("before X after").replace("X", "[REDACTED]"));
    }
  });
});

describe("a credential in Slack text whose formatting characters escapeMrkdwn showed as look-alikes", () => {
  it("is masked whole, registered or only token-shaped", () => {
    const registered = "sl4ck-*bold*_~strike~_`code`";
    registerSecret(registered);
    const token = "glpat-AbCd_-EfGh_IjKl-_MnOpQrSt";
    for (const secret of [registered, token]) {
      const escaped = escapeMrkdwn(`before ${secret} after`);
      expect(escaped).toMatch(/[＊＿～｀]/);
      expect(redactOutput(escaped)).toBe("before [REDACTED] after");
    }
  });
});

describe("anything shaped like a token is masked, registered or not (defence in depth)", () => {
  it.each([
    "glpat-AbCdEfGhIjKlMnOpQrSt",
    "glptt-0123456789abcdefghij",
    "gldt-AAAAAAAAAAAAAAAAAAAA_-",
    "glrt-t1_AbCdEfGhIjKlMnOpQrStUv",
    "glsoat-AbCdEfGhIjKlMnOpQrSt",
    "glcbt-64_AbCdEfGhIjKlMnOpQrSt",
    "gloas-AbCdEfGhIjKlMnOpQrStUvWxYz",
    "glft-AbCdEfGhIjKlMnOpQrSt",
    "glimt-AbCdEfGhIjKlMnOpQrSt",
    "glagent-AbCdEfGhIjKlMnOpQrSt",
    "glffct-AbCdEfGhIjKlMnOpQrSt",
    "glpat-Ab3dEfGhIjKlMnOpQrStUvWxYz012.01.1a2b3c4d5",
    "SIE-glpat-AbCdEfGhIjKlMnOpQrSt",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU",
  ])("%s, plain and Markdown-escaped", (token) => {
    expect(redactOutput(`a name: ${token} here`)).toBe("a name: [REDACTED] here");
    expect(redactOutput(escapeMarkdown(`a name ${token} here`))).toBe(`a name [REDACTED] here`);
  });

  // Slack's webhook URLs carry their secret in the path: a policy's error quoting one pasted there, say,
  // is masked whether or not the deployment's own webhook was registered yet.
  it.each([
    "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/AbCdEfGhIjKlMnOpQrStUvWx",
    "https://hooks.slack.com/workflows/T0123ABCD/A0456EFGH/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWx",
    "https://hooks.slack.com/triggers/T0123ABCD/1234567890123/0123456789abcdef0123456789abcdef",
    // A slash command's response_url, and an interaction's: whoever holds one posts to its channel for 30 minutes.
    "https://hooks.slack.com/commands/T0123ABCD/1234567890123/AbCdEfGhIjKlMnOpQrStUvWx",
    "https://hooks.slack.com/actions/T0123ABCD/1234567890123/AbCdEfGhIjKlMnOpQrStUvWx",
  ])("a Slack webhook URL, %s, plain, Markdown-escaped, in Slack's link brackets and in JSON", (url) => {
    expect(redactOutput(`notify: ${url} here`)).toBe("notify: https://[REDACTED] here");
    expect(redactOutput(escapeMarkdown(`notify ${url} here`))).toBe(`${escapeMarkdown("notify https://")}[REDACTED] here`);
    expect(redactOutput(escapeMrkdwn(`<${url}>`))).toBe("&lt;https://[REDACTED]&gt;");
    expect(redactOutput(jsonForTerminal({ url }))).not.toMatch(/AbCdEfGhIjKl|0123456789abcdef0/);
  });

  it.each([
    ["too short a body (under 16: a token has 20, and one cut short by a few is masked)", "glpat-AbCdEfGhIjKlMnO"],
    ["no type prefix", "acme-AbCdEfGhIjKlMnOpQrStUv"],
    ["a commit", "0123456789abcdef0123456789abcdef01234567"],
    ["32 hex digits", "8f14e45fceea167a5a36dedd4bea2543"],
    ["a path", "acme/platform/api-gateway_service.v2"],
    ["two dotted words", "eyJust.a.sentence"],
    ["Slack's webhook documentation", "https://hooks.slack.com/services/"],
  ])("not %s", (_name, text) => expect(redactOutput(`x ${text} y`)).toBe(`x ${text} y`));
});

describe("a URL's password, whoever's, by shape (a proxy's is never registered: a person chose it)", () => {
  it("is masked in a URL, its scheme, user and host kept; an address without a password, and a path that spells it, are left", () => {
    expect(redactOutput("via http://svc-warden:Winter2025x@proxy.corp:3128 and HTTPS://u:p%40ss@h/")).toBe("via http://svc-warden:[REDACTED]@proxy.corp:3128 and HTTPS://u:[REDACTED]@h/");
    expect(redactOutput("mailto:ops@example.com http://proxy.corp:3128/ acme/Winter2025x ssh://git@host")).toBe("mailto:ops@example.com http://proxy.corp:3128/ acme/Winter2025x ssh://git@host");
  });
});

describe("a token shape that runs on into a registered credential", () => {
  // In one alternation the leftmost match won: webhook-shaped text written just before a credential (a proxy's
  // error page, a display name beside an echoed URL) ran on over the credential's first letters, stopped at its
  // first "-", and the rest of it was printed. The registered credentials are masked in a pass of their own first.
  const registry = new SecretRegistry();
  const token = "glpat-Rv0wAdj4centSh4peXq9z";
  const key = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJkZW4tcmV2aWV3In0.c2lnbmF0dXJlLW9mLXRoZS1rZXk";
  registry.add(token);
  registry.add(key);
  const webhookShaped = "hooks.slack.com/services/T0123456789ABCDEFGHIJ";

  it.each([
    ["a GitLab token", token],
    ["an n8n key", key],
  ])("%s right after webhook-shaped text is masked whole, in plain text and in Slack's", (_name, credential) => {
    expect(registry.redact(`refused ${webhookShaped}${credential} here`)).toBe("refused [REDACTED][REDACTED] here");
    expect(registry.redact(escapeMrkdwn(`refused ${webhookShaped}${credential}`))).not.toMatch(/Adj4cent|LW9mLXRo/);
  });
});

describe("redactStrings", () => {
  it("redacts every string of a payload, nested anywhere, and leaves the rest of it as it was", () => {
    const payload = { text: `"${SECRET}"`, blocks: [{ n: 3, items: [`<${SECRET}>`, true, null] }] };
    const out = redactStrings(payload);
    expect(JSON.stringify(out)).not.toContain("redact-unit");
    expect(out.blocks[0]!.n).toBe(3);
    expect(out.blocks[0]!.items).toEqual(["<[REDACTED]>", true, null]);
    // Strings are masked before serialising, so the JSON stays valid whatever the credential sat beside.
    expect(JSON.parse(JSON.stringify(out)).text).toBe('"[REDACTED]"');
  });
});

describe("redactError: an error as the Lambda runtime logs it, every field and error within", () => {
  it("masks its fields, an AggregateError's errors and a cause that is no Error, keeping its class", () => {
    const secret = "error-field-secret-0123456789";
    registerSecret(secret);
    const inner = Object.assign(new Error(`inner ${secret}`), { headers: { "x-echo": secret } });
    const error = Object.assign(new AggregateError([inner, `plain ${secret}`], `outer ${secret}`, { cause: `because ${secret}` }), { url: `https://x/?k=${secret}`, self: undefined as unknown });
    error.self = error;
    const out = redactError(error);
    expect(out).toBe(error);
    expect(out).toBeInstanceOf(AggregateError);
    const [first, second] = out.errors as [Error & { headers: unknown }, string];
    const shown = JSON.stringify([out.message, out.stack, out.cause, out.url, first.message, first.stack, first.headers, second]);
    expect(shown).not.toContain(secret);
    expect(out.self).toBe(out);
    expect(out.message).toBe("outer [REDACTED]");
    expect(out.cause).toBe("because [REDACTED]");
    expect((out.errors[0] as Error).message).toBe("inner [REDACTED]");
    expect(redactError(`thrown ${secret}`)).toBe("thrown [REDACTED]");
  });
});


describe("a registered credential sent back in another form", () => {
  // A Slack signing secret's shape: no token shape masks it, only its registration.
  const secret = "8f14e45fceea167a5a36dedd4bea2543";
  const registry = new SecretRegistry();
  registry.add(secret);
  const base64At = (offset: number, url = false) => Buffer.concat([Buffer.from("x".repeat(offset)), Buffer.from(secret)]).toString(url ? "base64url" : "base64");

  it.each([
    ["upper-cased", secret.toUpperCase()],
    ["with a line break, raw and escaped", `${secret.slice(0, 10)}\n${secret.slice(10, 20)}\\x0a${secret.slice(20)}`],
    ["with zero-width characters, raw and escaped", `${secret.slice(0, 5)}\u200b\u200d${secret.slice(5, 9)}\\u200b${secret.slice(9)}`],
    ["wrapped onto an indented line, raw, escaped and Markdown-escaped", `${secret.slice(0, 10)}\n    ${secret.slice(10, 20)}\\x0a\t${secret.slice(20, 26)}\\\\x0a  ${secret.slice(26)}`],
    ["folded as a header is (CRLF, then a TAB), raw and as JSON writes it", `${secret.slice(0, 12)}\r\n\t${secret.slice(12, 24)}\\r\\n\\t${secret.slice(24)}`],
    ["with a TAB inside it, raw and escaped every way", `${secret.slice(0, 4)}\t${secret.slice(4, 8)}\\t${secret.slice(8, 12)}\\u0009${secret.slice(12, 16)}\\x09${secret.slice(16)}`],
    ["after a quoted-printable soft break and a backslash continuation", `${secret.slice(0, 15)}=\r\n${secret.slice(15, 25)}\\\n  ${secret.slice(25)}`],
    ["reversed", Array.from(secret).reverse().join("")],
    ["in hex", Buffer.from(secret).toString("hex").toUpperCase()],
    ...[0, 1, 2].flatMap((offset) => [[`in base64 after ${offset} bytes`, base64At(offset)], [`in base64url after ${offset} bytes`, base64At(offset, true)]]),
  ])("%s, it is masked", (_form, text) => {
    const out = registry.redact(`echo: ${text} .`);
    expect(out).toContain("[REDACTED]");
    expect(out).not.toMatch(/f14e45fc|fceea167|OGYxNGU0|ZjE0ZTQ1|MTRlNDVm/i);
  });

  // As dumps and encoders lay them out: a space or colon between bytes, lines of 76 (MIME) or 64 (PEM), a deep indent.
  const hex = Buffer.from(secret).toString("hex");
  const lines = (text: string, width: number, eol: string) => text.replace(new RegExp(`(.{${width}})(?!$)`, "g"), `$1${eol}`);
  /** Base64 of the secret after `offset` bytes and more, wrapped at `width`: the break falls 16 characters into its encoding. */
  const wrappedBase64 = (offset: number, width: number, eol: string) => lines(Buffer.concat([Buffer.from("x".repeat(3 * ((width - 16) / 4) + offset)), Buffer.from(secret)]).toString("base64"), width, eol);
  it.each([
    ["wrapped onto a line indented by 80 spaces", `${secret.slice(0, 16)}\n${" ".repeat(80)}${secret.slice(16)}`],
    ["in hex, a space between bytes", hex.replace(/(..)(?!$)/g, "$1 ")],
    ["in hex, upper-case, a colon between bytes", hex.toUpperCase().replace(/(..)(?!$)/g, "$1:")],
    ["in hex, in lines as escapeControls shows them", lines(hex, 30, "\\x0a")],
    ...[0, 1, 2].flatMap((offset) => [[`in base64 after ${offset} bytes, in MIME's lines of 76`, wrappedBase64(offset, 76, "\r\n")], [`in base64 after ${offset} bytes, in PEM's lines of 64, escaped`, wrappedBase64(offset, 64, "\\n")]]),
  ])("%s, it is masked", (_form, text) => {
    const out = registry.redact(`echo: ${text} .`);
    expect(out).toContain("[REDACTED]");
    expect(out.replace(/\s|:|\\x0a|\\n/g, "")).not.toMatch(/f14e45fc|fceea167|OGYxNGU0|ZjE0ZTQ1|MTRlNDVm|3866313465343566/i);
  });

  it("but none of them is masked for a piece of it: a mask would tell whoever wrote the text their guess is in it", () => {
    const piece = secret.slice(0, 24);
    const broken = `${piece.slice(0, 12)}\r\n\t${piece.slice(12)}`;
    const pieceHex = Buffer.from(piece).toString("hex");
    const encodedLines = [pieceHex.replace(/(..)(?!$)/g, "$1 "), lines(pieceHex, 16, "\n"), lines(Buffer.from(piece).toString("base64"), 16, "\r\n")];
    for (const text of [piece.toUpperCase(), pieceHex, Buffer.from(piece).toString("base64"), Array.from(piece).reverse().join(""), broken, `${broken}\n    `, ...encodedLines]) {
      expect(registry.redact(text)).toBe(text);
    }
  });

  it("takes a bounded time per character of a text that repeats all but its last character, broken up every way", () => {
    // Each break allowed between two characters, at its longest: were there two ways to read one, each break
    // would double the work of every near-miss, and this text would not be redacted in a lifetime.
    const key = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJkZW4ifQ.c2lnbmF0dXJlLW9mLWEtbG9uZy1rZXktZm9yLWEtdGVzdA";
    const keyRegistry = new SecretRegistry();
    keyRegistry.add(key);
    const longest = `\\=\r\\\\x0a${" ".repeat(80)}\\u0009${" ".repeat(80)}\u200b\\u200b\t\t\t`;
    expect(keyRegistry.redact(`(${Array.from(key).join(longest)})`)).toBe("([REDACTED])");
    const nearMiss = `${Array.from(key.slice(0, -1)).join(longest)}${longest}!`;
    const text = nearMiss.repeat(Math.ceil(1_000_000 / nearMiss.length));
    const start = performance.now();
    expect(keyRegistry.redact(text)).toBe(text);
    // About 0.2 s here; the bound is for a loaded machine.
    expect(performance.now() - start).toBeLessThan(10_000);
  });

  it("takes a bounded time on its base64 broken up at every character but short of its end, and on a megabyte of base64's lines", () => {
    const nearMiss = `${Array.from(Buffer.from(secret).toString("base64").slice(0, -6)).join(`\\x0a${" ".repeat(80)}`)}!`;
    for (const text of [nearMiss.repeat(Math.ceil(1_000_000 / nearMiss.length)), `${"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(2)}\n`.repeat(15_000)]) {
      const start = performance.now();
      expect(registry.redact(text)).toBe(text);
      // About 0.1 s each here; the bound is for a loaded machine.
      expect(performance.now() - start).toBeLessThan(10_000);
    }
  });
});

describe("a registered credential with spaces of its own (a passphrase an administrator typed: the system hook's token)", () => {
  const passphrase = "acme warden hook for the gitlab audit ok now";
  const registry = new SecretRegistry();
  registry.add(passphrase);

  it.each([
    ["as written", passphrase],
    ["wrapped at a space onto an indented line", passphrase.replace("hook ", "hook\n    ")],
    ["folded as a header is, at a space", passphrase.replace(" the ", "\r\n\tthe ")],
    ["with TAB-space runs for its spaces, raw and escaped", passphrase.split(" ").join("\t \\t ")],
  ])("%s, it is masked whole", (_form, text) => {
    expect(registry.redact(`echo: ${text} .`)).toBe("echo: [REDACTED] .");
  });

  it("but not its first words alone", () => {
    const piece = passphrase.split(" ").slice(0, 7).join("\n ");
    expect(registry.redact(piece)).toBe(piece);
  });

  // A hostile review: the separator took spaces after a TAB, and a passphrase's own spaces could be read as the
  // separator's or as themselves, so a near miss of its words joined by TAB-space runs was tried in about
  // 8^(spaces) ways (8 spaces: 1.2 s, 10: 94 s, 12: not in 300 s).
  it("takes a bounded time on a near miss of its words joined by TAB-space runs", () => {
    const text = passphrase.split(" ").join("\t ".repeat(8)).slice(0, -1);
    const longText = text.repeat(Math.ceil(1_000_000 / text.length));
    const start = performance.now();
    expect(registry.redact(longText)).toBe(longText);
    // Well under a second here; the bound is for a loaded machine.
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});
