/**
 * The one redaction point, a leaf module that lib/http and the front ends both use. Every credential
 * Warden holds is registered here (each HTTP client registers its own; the front ends register what
 * they read from the environment or a secret before doing anything else), and every text that leaves
 * the process — stderr, the report, audit lines, Lambda logs, Slack posts, stored reports — passes
 * `redactOutput` (or `redactStrings`, for a JSON payload) on its way out. lib/http's errors are
 * redacted here too when they are built, so a message is already clean wherever it travels.
 *
 * Only whole credentials are masked, never pieces of one: outputs quote text others choose (a command
 * word, a project path, a branch), and a mask that appeared for a piece of a credential would tell
 * whoever chose the text that their guess is in it, one character a try. So whether something is
 * masked depends on the text alone: a registered credential (which only someone who holds it can
 * write), or anything shaped like a GitLab token, a JWT, a Slack webhook URL or a URL's password
 * (`scheme://user:password@`), whoever's it is. A credential a person chooses (a proxy's password) is
 * not registered: a name written like it would come back masked, and tell its writer the guess was right. A message cut short must
 * therefore be redacted first, far past the cut, then cut (`redactThenCut`), never the other way round.
 *
 * Redaction comes last, after every escaping step, and recognises a credential however the escapers
 * wrote it (escapedChar): Markdown's backslashes, Slack's entities and look-alikes, JSON's and URLs'
 * escapes, HTML's numeric references, CSV's doubled quotes.
 */
import { brokenUp, maskBrokenRuns } from "./broken-up.ts";
import { escapedChar, fullwidth } from "./escaped-char.ts";

export { fullwidth };

const MASK = "[REDACTED]";
/** Shorter values are not masked at all: they would mask ordinary words, and are no credential. */
const MIN_SECRET = 4;
const SENSITIVE_QUERY = /^(private_token|access_token|job_token|token|api_key|apikey|key|secret|signature)$/i;

/** A run's characters: [A-Za-z0-9], `punctuation` and Slack's fullwidth look-alikes of it. */
const runClass = (punctuation: string) => `[${punctuation}A-Za-z0-9${Array.from(punctuation, fullwidth).join("")}]`;
/**
 * A run of at least `min` of runClass's characters, `punctuation` maybe Markdown-escaped, taken whole and
 * never given back (an atomic group: a lookahead's capture, matched again): a run that turns out not to
 * end as a token must is then left at once, not rescanned shorter and shorter.
 */
const run = (name: string, punctuation: string, min: number) =>
  `(?=(?<${name}>(?:${runClass(punctuation)}|\\\\[${punctuation}]){${min},}))\\k<${name}>`;

/**
 * Not within a run (its escapes end in one of its characters too): a shape that may fail after its run, begun
 * at each start within one (`eyJ－eyJ－…`), would read the run to its end from each, quadratic in one word's length.
 */
const notWithinRun = (punctuation: string) => `(?<!${runClass(punctuation)})`;

/**
 * Credentials of anyone's, by shape, masked even when not registered (defence in depth: a token
 * pasted into a name, a server echoing another one). GitLab's tokens: a type prefix in either case,
 * optionally an instance's own prefix before it (`SIE-glpat-…`), then 16 or more of [A-Za-z0-9_.-] (a
 * token has 20; one a server quoted cut short is masked as well); JWTs (n8n's
 * API keys): three base64url parts joined by dots, the first starting "eyJ" where a word starts;
 * Slack's webhook URLs and response_urls, from the host on (`hooks.slack.com/services/T…/B…/…`,
 * `hooks.slack.com/commands/T…/…`). Not
 * 32 hex digits (a Slack signing secret's shape): that is also a checksum's or an id's, and the
 * registered one is masked whole anyway. Each starts at a fixed prefix and scans a bounded or atomic
 * run (the JWT's, which may fail after one, only where no run goes on before it), so redacting stays
 * linear in the text, however hostile the text.
 */
const GITLAB_TOKEN_TYPES = ["glpat", "glptt", "gldt", "glrt", "glsoat", "glcbt", "gloas", "glft", "glimt", "glagent", "glffct"];
/** A word in either case, letter by letter (`[gG][lL]…`): a token sent back upper-cased is still one, while the other shapes keep their case (`eyJ`). */
const eitherCase = (word: string) => Array.from(word, (c) => `[${c}${c.toUpperCase()}]`).join("");
const TOKEN_SHAPES = [
  // 16 of the 20 characters or more: a server that cuts what it quotes short by a few must not print the rest.
  `(?:[A-Za-z0-9]{1,20}\\\\?-)?(?:${GITLAB_TOKEN_TYPES.map(eitherCase).join("|")})\\\\?-${run("gitlab", "-_.", 16)}`,
  `${notWithinRun("-_")}eyJ${run("header", "-_", 8)}\\\\?\\.${run("payload", "-_", 2)}\\\\?\\.${run("signature", "-_", 2)}`,
  // Slack's webhook URLs (incoming webhooks, workflows' and triggers') and a command's or an action's
  // response_url (anyone holding one may post to its channel for 30 minutes): the path after the host is the secret.
  `${Array.from("hooks.slack.com/", escapedChar).join("")}(?:services|workflows|triggers|commands|actions)${escapedChar("/")}${run("slack", "/", 20)}`,
];

const SHAPES = new RegExp(TOKEN_SHAPES.join("|"), "g");
/**
 * A word every shape's match holds as written (letters are never escaped): a GitLab token's type, in either
 * case; a JWT's `eyJ`; a Slack URL's `hooks`. A text without any cannot match SHAPES, which costs a scan of
 * some 20 characters from each position (a token's optional instance prefix): most texts are spared it.
 */
const IN_EVERY_SHAPE = new RegExp(`${eitherCase("gl")}|eyJ|hooks`);

/**
 * A URL's user and password (`http://USER:PASSWORD@host`): the password masked, the scheme, the user and the
 * `@` kept as written. As written raw, or as Markdown (`https\:\/\/user\:pw\@`) and a GitLab title
 * (`https:\u200d//user:\u200dpw@`) write it: redaction comes after them, and a `@` written raw in place of an
 * escaped one would make a mention.
 */
const URL_PASSWORD = new RegExp(
  String.raw`\b([a-z][a-z0-9+.-]{0,19}\\?:\u200d?\\?/\\?/(?:[^\s/?#@:\\]|\\[^\s/?#@:]){0,256}\\?:\u200d?)(?:[^\s/?#@\\]|\\[^\s/?#@]){1,256}(\\?@)`,
  "gi",
);

/** Credentials this long or longer are also masked in the forms below: shorter ones' encodings would be short enough to occur by chance. */
const MIN_ENCODED = 16;
/**
 * Longer ones (no token Warden is given, but the AWS session token) are masked as written and escaped only,
 * not broken up, in another case or encoded: what an endpoint quoting a request's headers back writes.
 */
const MAX_FORMED = 512;

/**
 * The patterns that mask `secret`: as written, by any escaper, broken up by SEPARATOR; and, for a
 * credential of MIN_ENCODED characters or more, in either case (a server may upper-case what it quotes),
 * reversed, in hex (a dump's space or colon between two bytes too), and in base64 (standard and URL-safe)
 * at each of the three places it may start within a 3-byte group, the characters that depend on its bytes
 * alone, as secret scanners match encoded secrets; the hex and base64 broken into lines too (a dump's,
 * MIME's 76 columns, PEM's 64: maskBrokenRuns). Each needs all of it (or all but the few bytes at its ends
 * a base64 group shares with its neighbours), so only whoever holds it can write any: masking them tells
 * nobody anything new.
 */
function writtenForms(secret: string): string[] {
  const escaped = (text: string) => Array.from(text, escapedChar).join("");
  // An AWS session token (about 1,000 characters, in a Lambda's environment and a header of every AWS request): its
  // forms below took V8 half a second to compile, on a function's first line and again at each credential registered after it.
  if (secret.length > MAX_FORMED) return [escaped(secret)];
  if (secret.length < MIN_ENCODED) return [brokenUp(Array.from(secret), escapedChar)];
  // Either case, letter by letter: `i` on the whole pattern would take a short credential's case too ("jane" masking "Jane").
  const caselessChar = (c: string) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapedChar(c));
  const caseless = (text: string) => Array.from(text, caselessChar).join("");
  const forms = [brokenUp(Array.from(secret), caselessChar)];
  const bytes = Buffer.from(secret, "utf8");
  const hexBytes = bytes.toString("hex").match(/../g)!.map(caseless);
  forms.push(caseless(Array.from(secret).reverse().join("")), hexBytes.join("[ :]?"));
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const core = encoded.slice(offset ? 4 : 0, 4 * Math.floor((offset + bytes.length) / 3));
    forms.push(escaped(core), escaped(core.replaceAll("+", "-").replaceAll("/", "_")));
  }
  return forms;
}

/**
 * The registered credentials are masked first, in a pass of their own, and the token shapes then: in one
 * alternation the leftmost match wins, so a shape begun just before a credential (a webhook URL's path runs
 * on over letters) took its first letters and stopped at its first "-", and the rest of it was printed.
 */
export class SecretRegistry {
  private readonly secrets = new Set<string>();
  /** Every registered credential, longest first; rebuilt on add. */
  private matcher: RegExp | undefined;

  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.matcher = undefined;
  }

  redact(text: string): string {
    if (this.secrets.size) this.matcher ??= new RegExp([...this.secrets].sort((a, b) => b.length - a.length).flatMap(writtenForms).join("|"), "g");
    const registered = this.matcher ? maskBrokenRuns(text.replace(this.matcher, MASK), this.matcher, MASK) : text;
    const shaped = IN_EVERY_SHAPE.test(registered) ? registered.replace(SHAPES, MASK) : registered;
    return shaped.replace(URL_PASSWORD, `$1${MASK}$2`);
  }
}

/** The process's credentials: in a warm Lambda or a CLI run, every credential it has held. */
export const processSecrets = new SecretRegistry();

export function registerSecret(secret: string | undefined): void {
  processSecrets.add(secret);
}

/** Masks every registered credential, and anything shaped like a token, in `text`. */
export function redactOutput(text: string): string {
  return processSecrets.redact(text);
}

const noneRegistered = new SecretRegistry();

/**
 * Masks only what is shaped like a token: for a check whose answer goes to someone not yet allowed
 * anything, who must not learn from it whether a guess was one of the registered credentials.
 */
export function redactShapes(text: string): string {
  return noneRegistered.redact(text);
}

/**
 * `value` with every string in it redacted: for a payload about to leave the process as JSON (a Slack
 * post, a stored report, a log line). Strings rather than the JSON text, so a mask can never land
 * inside one of JSON's escapes and break the document.
 */
export function redactStrings<T>(value: T): T {
  if (typeof value === "string") return redactOutput(value) as T;
  if (Array.isArray(value)) return value.map(redactStrings) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v)])) as T;
  return value;
}

/**
 * `error` with the message and stack of it and its causes redacted in place, and every other field of
 * theirs (an HTTP error's headers, a cause that is no Error), for an error that leaves the process as it
 * is: a Lambda's, which the runtime logs itself with every enumerable field and returns to the invoker,
 * and a durable execution keeps. In place, so that it keeps its class and fields for whatever looks at them.
 */
export function redactError<T>(error: T): T {
  const seen = new Set<unknown>();
  // An error anywhere within (a cause, an AggregateError's errors, a field) is redacted in place, once.
  const clean = (value: unknown): unknown => {
    if (!(value instanceof Error)) return Array.isArray(value) ? value.map(clean) : redactStrings(value);
    if (seen.has(value)) return value;
    seen.add(value);
    for (const key of ["message", "stack"] as const) {
      if (typeof value[key] === "string") Object.defineProperty(value, key, { value: redactOutput(value[key]), writable: true, configurable: true, enumerable: false });
    }
    for (const key of Reflect.ownKeys(value)) {
      const field = Object.getOwnPropertyDescriptor(value, key)!;
      if (key !== "message" && key !== "stack" && "value" in field && field.configurable) Object.defineProperty(value, key, { ...field, value: clean(field.value) });
    }
    return value;
  };
  return clean(error) as T;
}

/** How far past a cut redactThenCut redacts: far past anything shown, and a bound on what one text costs. */
const REDACTED_PAST_CUT = 16 * 1024;

/**
 * Redacts the text, then cuts it to `max` characters (on a code point), marking the cut. Only its first
 * `max` + REDACTED_PAST_CUT are redacted (a server's answer may weigh megabytes): no mask begun in what is
 * shown ends past them but a token's or webhook URL's run (masked at the bound all the same), a JWT's 16 KiB
 * header (its signature far past what is shown), or a registered credential broken up by kilobytes, which
 * only its holder can write. So the cut shows nothing more; past the bound, not even the rest's length.
 */
export function redactThenCut(text: string, max: number): string {
  const read = max + REDACTED_PAST_CUT;
  const clean = redactOutput(text.slice(0, read));
  if (clean.length <= max && text.length <= read) return clean;
  const cut = Array.from(clean.slice(0, max + 1)).slice(0, -1).join("").slice(0, max);
  return `${cut}… (${text.length > read ? "more than " : ""}${clean.length - cut.length} more characters)`;
}

export interface Redactor {
  text(input: string): string;
  /** Path and query of a URL, safe for errors and logs (no origin, no secret values). */
  path(url: URL): string;
}

/** Registers `secrets` and returns the redactor lib/http's layers build their messages with. */
export function createRedactor(secrets: Iterable<string>): Redactor {
  for (const secret of secrets) registerSecret(secret);
  return {
    text: redactOutput,
    path(url) {
      const query = [...url.searchParams]
        .map(([k, v]) => `${encodeURIComponent(k)}=${SENSITIVE_QUERY.test(k) ? MASK : encodeURIComponent(v)}`)
        .join("&");
      return redactOutput(url.pathname + (query ? `?${query}` : ""));
    },
  };
}
