/**
 * What a body looks like, said without quoting it: an SSO proxy's login page or a gateway's error page
 * is named ("an HTML page, 2.1 kB"), never pasted into an error as markup.
 */

export type BodyKind = "html" | "json" | "text" | "empty" | "other";

export function bodyKind(text: string, contentType: string | undefined): BodyKind {
  const type = (contentType ?? "").toLowerCase();
  const start = text.trimStart().slice(0, 64).toLowerCase();
  if (start === "") return "empty";
  // Markup is an HTML page whatever the header says; a JSON error some proxies label text/html is not.
  if (/^<(!doctype html|html|head|body|!--)/.test(start) || (type.includes("html") && !looksLikeJsonStart(text))) return "html";
  if (type.includes("json")) return "json";
  if (type.startsWith("text/") || type === "") return "text";
  return "other";
}

/** "an HTML page", "plain text", …: the words for each kind, in the errors that name one. */
export function describeKind(kind: BodyKind, contentType: string | undefined): string {
  switch (kind) {
    case "html":
      return "an HTML page";
    case "json":
      return "JSON that does not parse";
    case "text":
      return "plain text";
    case "empty":
      return "an empty body";
    case "other":
      return `a ${mediaType(contentType)} body`;
  }
}

/** Whether the text starts like a JSON document: an object, an array or a string. */
export function looksLikeJsonStart(text: string): boolean {
  return /^[{["]/.test(text.trimStart());
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** The media type alone ("text/html"), without parameters a server might fill with anything. */
export function mediaType(contentType: string | undefined): string {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type) ? type : "no content type";
}
