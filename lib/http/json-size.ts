/**
 * How much a JSON text would make on the heap, counted only as far as a bound: an answer's bytes are
 * capped (transport.ts), but not what parsing them makes. `[{},{},…]` makes an object of some 60 bytes
 * of heap for every 3 bytes of text, so 24 MB of it is more than the functions' and the CLI's heap
 * (lib/config/node-options.ts) holds; `[1.5,"",1.5,…]` makes a value (a pointer, and a heap number) of
 * some 20 bytes for every 3, so 60 MB of it is too. V8 would end the process, with no report and no
 * word of Warden's. Brackets and commas inside strings (a workflow's code) are not counted.
 */

/** The most objects and arrays one answer may hold: GitLab's largest pages make thousands, an n8n page of 250 large workflows tens of thousands. */
export const MAX_JSON_CONTAINERS = 1_000_000;
/** The most values (array elements and object members, counted by their commas) one answer may hold: an n8n page of 250 large workflows makes some hundreds of thousands. */
export const MAX_JSON_VALUES = 5_000_000;

const [QUOTE, BACKSLASH, OPEN_BRACE, OPEN_BRACKET, COMMA] = [0x22, 0x5c, 0x7b, 0x5b, 0x2c];

/**
 * What `text` holds more of than Warden parses of one answer ("objects and arrays" or "values"), or
 * undefined; a text too short to hold more than either bound is not read.
 */
export function beyondBounds(text: string, max = { containers: MAX_JSON_CONTAINERS, values: MAX_JSON_VALUES }): string | undefined {
  // Each object or array takes two characters at the least, and each value after a container's first a comma and a character.
  if (text.length <= 2 * Math.min(max.containers, max.values)) return undefined;
  let containers = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === COMMA) {
      if (++values > max.values) return `more than ${max.values.toLocaleString("en")} values`;
    } else if ((c === OPEN_BRACE || c === OPEN_BRACKET) && ++containers > max.containers) return `more than ${max.containers.toLocaleString("en")} objects and arrays`;
  }
  return undefined;
}
