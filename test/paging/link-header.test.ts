import { describe, expect, it } from "vitest";
import { linkWithRel, parseLinkHeader } from "../../lib/paging/index.ts";

describe("RFC 8288 Link parsing", () => {
  it.each([
    ["one link", '<https://g.example/api/v4/projects?page=2>; rel="next"', "next", "https://g.example/api/v4/projects?page=2"],
    ["several links", '<https://g/a?page=1>; rel="prev", <https://g/a?page=3>; rel="next", <https://g/a?page=1>; rel="first"', "next", "https://g/a?page=3"],
    ["unquoted rel", "<https://g/a?page=3>; rel=next", "next", "https://g/a?page=3"],
    ["several rels in one link", '<https://g/a?page=9>; rel="next last"', "last", "https://g/a?page=9"],
    ["commas and semicolons inside the URL", '<https://g/a?labels=x,y;z&page=2>; rel="next", <https://g/a?page=1>; rel="first"', "next", "https://g/a?labels=x,y;z&page=2"],
    ["quoted params with commas before rel", '<https://g/a?page=2>; title="a, b; c"; rel="next"', "next", "https://g/a?page=2"],
    ["case-insensitive rel", '<https://g/a?page=2>; REL="Next"', "next", "https://g/a?page=2"],
    ["rel absent", "<https://g/a?page=2>; title=x", "next", undefined],
  ])("%s", (_name, header, rel, expected) => {
    expect(linkWithRel(header, rel)).toBe(expected);
  });

  it("keeps every link and the first occurrence of a parameter", () => {
    const links = parseLinkHeader('<https://g/1>; rel="prev"; rel="next", <https://g/2>; rel="next"');
    expect(links.map((l) => [l.uri, l.rels])).toEqual([
      ["https://g/1", ["prev"]],
      ["https://g/2", ["next"]],
    ]);
  });
});
