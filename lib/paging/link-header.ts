/**
 * RFC 8288 `Link` header parsing: several links, several space-separated rels per link, quoted
 * parameters, and commas or semicolons inside `<…>` URLs or quoted strings (which a split on "," breaks).
 */

export interface LinkValue {
  uri: string;
  rels: string[];
  params: Record<string, string>;
}

export function parseLinkHeader(header: string): LinkValue[] {
  const links: LinkValue[] = [];
  let i = 0;
  const skip = (chars: string) => {
    while (i < header.length && chars.includes(header[i]!)) i++;
  };
  while (i < header.length) {
    skip(" \t,");
    if (header[i] !== "<") break;
    const end = header.indexOf(">", i);
    if (end < 0) break;
    const link: LinkValue = { uri: header.slice(i + 1, end), rels: [], params: {} };
    i = end + 1;
    for (skip(" \t"); header[i] === ";"; skip(" \t")) {
      i++;
      skip(" \t");
      const name = readUntil("=;,").trim().toLowerCase();
      let value = "";
      if (header[i] === "=") {
        i++;
        skip(" \t");
        value = header[i] === '"' ? readQuoted() : readUntil(";,").trim();
      }
      // RFC 8288 §3: only the first occurrence of a parameter counts.
      if (name && !(name in link.params)) link.params[name] = value;
    }
    link.rels = (link.params["rel"] ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    links.push(link);
  }
  return links;

  function readUntil(stops: string): string {
    const start = i;
    while (i < header.length && !stops.includes(header[i]!)) i++;
    return header.slice(start, i);
  }

  function readQuoted(): string {
    let out = "";
    for (i++; i < header.length && header[i] !== '"'; i++) out += header[i] === "\\" ? header[++i] ?? "" : header[i];
    i++;
    return out;
  }
}

export function linkWithRel(header: string | undefined, rel: string): string | undefined {
  return header ? parseLinkHeader(header).find((l) => l.rels.includes(rel))?.uri : undefined;
}
