/**
 * GitLab's request encoding rules (spec §4 "Request conventions"), in one place so that every call
 * encodes exactly once.
 */

export type PathParams = Record<string, string | number>;

/**
 * Fills a `:name` template (the spec's notation) with URL-encoded values: `acme/mobile/app` becomes
 * `acme%2Fmobile%2Fapp`, and so do branch names, tags and file paths. The template is also the route
 * label used for counters and errors, so two projects count as one route.
 */
export function fillPath(template: string, params: PathParams = {}): string {
  return template.replace(/:([a-z_]+)/g, (token, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter ${token} is missing for ${template}`);
    return encodeURIComponent(String(value));
  });
}

type Scalar = string | number | boolean;
export type QueryValue = Scalar | undefined | readonly Scalar[] | Readonly<Record<string, Scalar>> | readonly Readonly<Record<string, Scalar>>[];
export type Query = Record<string, QueryValue>;

/**
 * Serialises arrays as `a[]=`, hashes as `h[k]=` and arrays of hashes as `variables[0][key]=`.
 * encodeURIComponent sends `+` as `%2B` (GitLab reads a bare `+` as a space, which breaks timestamps
 * like `…T10:00:00+02:00`) and spaces as `%20`. Booleans are `true`/`false`, never null.
 */
export function serializeQuery(query: Query): string {
  const pairs: string[] = [];
  const add = (key: string, value: Scalar) => {
    if (value === null || value === undefined) throw new TypeError(`query parameter ${decodeURIComponent(key)} is ${value}: GitLab takes only true or false, never null`);
    pairs.push(`${key}=${encodeURIComponent(String(value))}`);
  };
  const addHash = (key: string, hash: Readonly<Record<string, Scalar>>) => {
    for (const [k, v] of Object.entries(hash)) add(`${key}[${encodeURIComponent(k)}]`, v);
  };
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const key = encodeURIComponent(name);
    if (Array.isArray(value)) {
      value.forEach((item: Scalar | Readonly<Record<string, Scalar>>, i) => (isHash(item) ? addHash(`${key}[${i}]`, item) : add(`${key}[]`, item)));
    } else if (isHash(value)) addHash(key, value);
    else add(key, value as Scalar);
  }
  return pairs.join("&");
}

function isHash(value: unknown): value is Readonly<Record<string, Scalar>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** GitLab booleans may be null, which means false (spec §2 rule 3). */
export function isTrue(value: boolean | null | undefined): boolean {
  return value === true;
}
