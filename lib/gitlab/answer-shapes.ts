/**
 * Checking that an answer has the shape of what was asked for before anything reads it. Anything else
 * (JSON without the fields: a proxy's, a hostile server's, a wrong address's) is an error naming the
 * request, not a value read with its fields undefined: a group detail without shares would pass for one
 * that has none, and a namespace without a kind for a user's, blamed on the policy.
 */
import { mediaType, UnexpectedAnswerError, type HttpResponse } from "../http/index.ts";
import type { CurrentUser, GroupDetail, Namespace, ProjectShare } from "./types.ts";

/**
 * A POST's 2xx whose JSON is not what it makes (`null`, a gateway's `{"status":"ok"}`): GitLab's answer
 * replaced after it may have acted, an UnexpectedAnswerError with that 2xx, which mayHaveBeenMade() counts
 * as maybe done (the restore reads the share back; a pipeline is reported unknown).
 */
export function replaced(status: number, template: string, response: HttpResponse, path: string, looksLike: string): UnexpectedAnswerError {
  return new UnexpectedAnswerError(
    { status, method: "POST", route: `POST ${template}`, path, contentType: mediaType(response.headers["content-type"]), bytes: Buffer.byteLength(response.text), looksLike },
    "is a proxy or gateway in front of GitLab replacing its answers?",
  );
}

type Fields = Record<string, unknown>;
const isObject = (d: unknown): d is Fields => typeof d === "object" && d !== null && !Array.isArray(d);
/** An id GitLab writes, as JSON.parse reads it exactly: past 2^53 it would be rounded to another's. */
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

function shaped<T>(data: unknown, request: string, what: string, expected: string, fits: (d: Fields) => boolean): T {
  if (!isObject(data) || !fits(data)) throw new Error(`${request} answered with JSON that is not ${what} (${expected} expected)`);
  return data as T;
}

/** A group's detail as GitLab sends it. */
export function groupDetail(data: unknown, group: string | number): GroupDetail {
  return shaped(data, `GET /groups/${group}`, "a group's detail", "id, full_path and shared_with_groups", (d) =>
    isId(d["id"]) && typeof d["full_path"] === "string" && Array.isArray(d["shared_with_groups"]) && (d["projects"] === undefined || Array.isArray(d["projects"])),
  );
}

/** A namespace, a group's or a user's. */
export function namespaceAnswer(data: unknown, namespace: string | number): Namespace {
  return shaped(data, `GET /namespaces/${namespace}`, "a namespace", "id, kind and full_path", (d) => isId(d["id"]) && (d["kind"] === "group" || d["kind"] === "user") && typeof d["full_path"] === "string");
}

/** The token's user. */
export function userAnswer(data: unknown): CurrentUser {
  return shaped(data, "GET /user", "a user", "id and username", (d) => isId(d["id"]) && typeof d["username"] === "string");
}

/** A date, or a timestamp (GitLab's, or a proxy's rewrite of it): a date followed by anything else is no expiry GitLab writes. */
const EXPIRY = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A link as GitLab lists it: the invited group by id and full path, with its access level; and the two
 * fields the policy's conditions read, as GitLab writes them or absent: an expiry (a date or a timestamp,
 * or null) and a custom role (an id, or null). Any other (a role "9", an expiry "") would be read as
 * none: a share maxAccess or expiresWithin forbids judged in policy.
 */
const isShare = (s: unknown): boolean =>
  isObject(s) &&
  isId(s["group_id"]) &&
  typeof s["group_full_path"] === "string" &&
  Number.isSafeInteger(s["group_access_level"]) &&
  (s["expires_at"] == null || (typeof s["expires_at"] === "string" && EXPIRY.test(s["expires_at"]))) &&
  (s["member_role_id"] == null || isId(s["member_role_id"]));

/**
 * A share's expiry as its day, YYYY-MM-DD: the policy judges the day, and plans, reports and audit lines
 * carry it to readers that take a date only (a timestamp there refused the whole plan or audit log).
 */
const timed = (share: ProjectShare): boolean => typeof share.expires_at === "string" && share.expires_at.length > 10;
const onItsDay = <S extends ProjectShare>(share: S): S => (timed(share) ? { ...share, expires_at: share.expires_at!.slice(0, 10) } : share);

/**
 * A project's or group's `shared_with_groups` (`whose` names it), checked as it is judged: a listing
 * without it (`simple=true`, a proxy's rewrite) or with `null` would pass for one where nothing is
 * shared, every stray in it for in policy; a share whose group is not an id would be judged as another's.
 */
export function sharesAnswer<S extends ProjectShare>(shares: S[] | undefined, whose: string): S[] {
  // The same list where no expiry is a timestamp (GitLab writes dates): a copy of every project's list, kept beside the answer, cost 18 MB of peak RSS at 100,000 projects.
  if (Array.isArray(shares) && shares.every(isShare)) return shares.some(timed) ? shares.map(onItsDay) : shares;
  throw new Error(`GitLab answered ${whose} without its shared_with_groups as a list of groups, each with its id, full path and access level: its shares cannot be judged (is a proxy rewriting GitLab's answers?)`);
}
