/**
 * Decodes the answers of requests sent with `expect: "json"`, inside the retry layer so that a body cut
 * short is repeated like a dropped connection (for idempotent methods; a POST is never repeated once it
 * may have arrived). Anything else that is not JSON — a sign-in proxy's login page, plain text — is an
 * UnexpectedAnswerError that names it and carries the client's hint, and so is JSON that would make more
 * objects or values than the heap holds (json-size.ts), counted in what is parsed: only the fields a
 * request names where it names them (json-fields.ts). A JSON.parse error is never surfaced, as its message quotes the body.
 */
import { bodyKind, describeKind, formatBytes, looksLikeJsonStart, mediaType } from "./body.ts";
import { NetworkError, UnexpectedAnswerError } from "./errors.ts";
import { keepFields } from "./json-fields.ts";
import { beyondBounds } from "./json-size.ts";
import type { Redactor } from "../redact/index.ts";
import type { HttpRequest, HttpResponse, Layer } from "./types.ts";

/** The code of a body cut short; the retry layer repeats it like a dropped connection. */
export const TRUNCATED_BODY = "TRUNCATED_BODY";

/** Statuses that carry no body by definition. */
const BODILESS = new Set([204, 205]);

export function jsonLayer(redactor: Redactor, hint?: string): Layer {
  return (next) => async (req) => {
    const res = await next(req);
    // Only answers the caller receives: redirects and refused statuses go on to their own layers.
    if (req.expect !== "json" || !(res.status < 300 || req.accept?.includes(res.status))) return res;
    if (BODILESS.has(res.status) || req.method === "HEAD") return res;
    const text = req.fields ? keepFields(res.text, req.fields) : res.text;
    const beyond = beyondBounds(text);
    if (beyond !== undefined) throw tooMuch(beyond, req, res, redactor, hint);
    try {
      return { ...res, json: JSON.parse(text) as unknown };
    } catch {
      throw notJson(req, res, redactor, hint);
    }
  };
}

/** An answer that would make more than a heap holds (json-size.ts; `beyond` says of what): refused unparsed, as an answer over the byte cap is. */
function tooMuch(beyond: string, req: HttpRequest, res: HttpResponse, redactor: Redactor, hint: string | undefined): Error {
  const contentType = mediaType(res.headers["content-type"]);
  const looksLike = `JSON of ${beyond}, more than Warden parses of one answer: it was not parsed`;
  return new UnexpectedAnswerError({ status: res.status, method: req.method, route: req.route, path: redactor.path(res.url), contentType, bytes: Buffer.byteLength(res.text), looksLike, tooLarge: true }, hint);
}

function notJson(req: HttpRequest, res: HttpResponse, redactor: Redactor, hint: string | undefined): Error {
  const contentType = res.headers["content-type"];
  const kind = bodyKind(res.text, contentType);
  const path = redactor.path(res.url);
  const bytes = Buffer.byteLength(res.text);
  if (kind === "json" && looksLikeJsonStart(res.text)) {
    return new NetworkError({
      code: TRUNCATED_BODY,
      method: req.method,
      route: req.route,
      path,
      mayHaveReachedServer: true,
      message: `${req.method} ${path} answered ${res.status} with JSON cut short (${mediaType(contentType)}, ${formatBytes(bytes)})`,
    });
  }
  return new UnexpectedAnswerError(
    { status: res.status, method: req.method, route: req.route, path, contentType: mediaType(contentType), bytes, looksLike: describeKind(kind, contentType) },
    hint,
  );
}
