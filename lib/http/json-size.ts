/**
 * How many objects and arrays a JSON text would make, counted only as far as a bound: an answer's
 * bytes are capped (transport.ts), but not what parsing them makes, and `[{},{},…]` makes an object of
 * some 60 bytes of heap for every 3 bytes of text, so 24 MB of it is more than the functions' and the
 * CLI's heap (lib/config/node-options.ts) holds: V8 would end the process, with no report and no word
 * of Warden's. Brackets inside strings (a workflow's code) are not counted.
 */

/** The most objects and arrays one answer may hold: GitLab's largest pages make thousands, an n8n page of 250 large workflows tens of thousands. */
export const MAX_JSON_CONTAINERS = 1_000_000;

const [QUOTE, BACKSLASH, OPEN_BRACE, OPEN_BRACKET] = [0x22, 0x5c, 0x7b, 0x5b];

/** Whether `text` holds more than `max` objects and arrays (outside strings); a text too short to hold them is not read. */
export function moreContainersThan(text: string, max = MAX_JSON_CONTAINERS): boolean {
  // Each object or array takes two characters at the least.
  if (text.length <= 2 * max) return false;
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if ((c === OPEN_BRACE || c === OPEN_BRACKET) && ++count > max) return true;
  }
  return false;
}
