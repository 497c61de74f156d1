/**
 * The plan file, as terraform's planfile: `warden enforce --out` writes the removals a reviewed dry
 * run planned, with the policy they were judged by, the GitLab origin, when, and by which Warden;
 * `warden apply` reads it back. A versioned, explicit contract: a checksum over its canonical content,
 * and every check below made before any request.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { instanceUrl } from "../../gitlab/index.ts";
import { parsePolicy, type Policy, type PolicySource } from "../../policy/index.ts";
import { redactOutput, redactStrings } from "../../redact/index.ts";
import { MAX_PLANNED, REMOVAL_TYPES, type ShareRemoval } from "./plan.ts";
import { writeFileAtomically } from "../atomic-file.ts";
import { canonicalJson, JsonTooDeepError } from "../canonical-json.ts";

export const PLAN_FORMAT = "warden-plan";
export const PLAN_FORMAT_VERSION = 1;
/** How far in the future a plan's createdAt may lie (clocks of CI runners differ a little). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A removal as planned: the share as it was seen and why it is stray, without an outcome. */
export type PlannedRemoval = Planned<ShareRemoval>;
type Planned<A> = A extends ShareRemoval ? Omit<A, "status" | "error"> : never;

export interface PlanFile {
  format: typeof PLAN_FORMAT;
  formatVersion: typeof PLAN_FORMAT_VERSION;
  createdAt: string;
  wardenVersion: string;
  /** The GitLab instance (instanceUrl: scheme, host, port and path prefix): never a credential. */
  gitlabUrl: string;
  /** The policy the removals were judged by: where it came from, the SHA-256 of its text, and the text. */
  policy: PolicySource & { text: string };
  /** Allow and exempt rules that matched nothing in the examination (e.g. "exempt[0]"): the policy's unmatchedRules guard reads them. */
  unmatchedRules: string[];
  removals: PlannedRemoval[];
  /**
   * "hmac-sha256:" and the hex HMAC-SHA256, keyed with WARDEN_PLAN_KEY, of the canonical JSON of every
   * field but this and the checksum: only a holder of the key can write one that verifies.
   */
  signature?: string;
  /** "sha256:" and the hex SHA-256 of the canonical JSON of every other field (the signature included). */
  checksum: string;
}

export class PlanFileError extends Error {
  override name = "PlanFileError";
}

/** The smallest WARDEN_PLAN_KEY taken: 32 bytes, as an HMAC-SHA256 key should be at least its output's size. */
export const MIN_PLAN_KEY_LENGTH = 32;

export interface PlanInput {
  removals: readonly ShareRemoval[];
  policy: Policy;
  gitlabUrl: string;
  createdAt: Date;
  wardenVersion: string;
  unmatchedRules: string[];
  /** WARDEN_PLAN_KEY: when given, the plan carries its signature. */
  key?: string;
}

export function planFile({ removals, policy, gitlabUrl, createdAt, wardenVersion, unmatchedRules, key }: PlanInput): PlanFile {
  // The key is not registered with lib/redact (a key a person typed would turn every name quoted into a test
  // of a guess), so writePlanFile's check would not find it: a plan holding it would let its readers sign.
  if (key !== undefined && policy.text.includes(key)) throw new PlanFileError("no plan was written: the policy's text holds WARDEN_PLAN_KEY; remove it from the policy, and plan again");
  const content = {
    format: PLAN_FORMAT,
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: createdAt.toISOString(),
    wardenVersion,
    gitlabUrl: instanceUrl(gitlabUrl),
    policy: { ...policy.source, text: policy.text },
    unmatchedRules,
    // GitLab's names masked as in every other output (lib/redact): a group named like a token, by whoever
    // owns it, must not stop the plan from being written. Apply judges each share again by its ids.
    removals: redactStrings(removals.map(({ status: _status, error: _error, notice: _notice, ...planned }) => planned as PlannedRemoval)),
  } as const;
  const signed = key === undefined ? content : { ...content, signature: signatureOf(content, key) };
  return { ...signed, checksum: checksumOf(signed) };
}

/**
 * Written beside its final name and renamed over it once on disk, so a run killed mid-write leaves the
 * previous file or none, never half a plan.
 */
export function writePlanFile(path: string, plan: PlanFile): void {
  const text = `${JSON.stringify(plan, null, 2)}\n`;
  // Every output passes the one redaction point. GitLab's names are masked already (planFile); the policy's
  // text cannot be (apply checks it against the policy), so a plan whose policy holds a credential, or
  // anything shaped like one, is not written at all.
  if (redactOutput(text) !== text) throw new PlanFileError(`nothing was written to ${path}: the plan would hold a credential, or something shaped like one, in the policy's text: remove it from the policy, and plan again`);
  try {
    writeFileAtomically(path, text);
  } catch (err) {
    throw new PlanFileError(`cannot write the plan to ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export interface PlanExpectations {
  /** GITLAB_URL: the plan must have been made for its origin. */
  gitlabUrl: string;
  maxAgeMs: number;
  now: Date;
  /** WARDEN_PLAN_KEY: when given, a plan without a signature that verifies with it is refused. */
  key?: string;
}

/**
 * A plan file's text, checked, with its policy parsed again from the recorded text; PlanFileError names the
 * cause and the fix. The policy's source is what the plan says: checkPlanPolicy gives the one to judge by.
 */
export function readPlanFile(text: string, file: string, expect: PlanExpectations): { plan: PlanFile; policy: Policy } {
  const notPlan = `${file} is not a Warden plan file (write one with: warden enforce --out ${file})`;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new PlanFileError(notPlan);
  }
  if (!isRecord(data) || data["format"] !== PLAN_FORMAT) throw new PlanFileError(notPlan);
  // Counted before the checksum and the schema make copies of each: it is their number that fills the heap
  // (350,000 in 50 MB, under the read's limit, ended the process with V8's heap error), and no run plans so many.
  const listed = Array.isArray(data["removals"]) ? data["removals"].length : 0;
  if (listed > MAX_PLANNED) throw new PlanFileError(`${file} lists ${listed} removals, more than any enforce run plans (${MAX_PLANNED}): not a plan Warden wrote; plan again`);
  if (data["formatVersion"] !== PLAN_FORMAT_VERSION) {
    const by = typeof data["wardenVersion"] === "string" ? ` (written by Warden ${data["wardenVersion"].slice(0, 20)})` : "";
    throw new PlanFileError(`${file}: plan format version ${JSON.stringify(data["formatVersion"])}${by} is unknown to this Warden, which reads version ${PLAN_FORMAT_VERSION}: apply it with the Warden that wrote it, or plan again`);
  }
  const { checksum, ...content } = data;
  if (checksum !== checksumOf(content, file)) throw new PlanFileError(`${file} was edited after it was written (its checksum does not match its content): plan again with warden enforce --out, and review that plan`);
  if (expect.key !== undefined) checkSignature(content, file, expect.key);
  const parsed = PlanSchema.safeParse(data);
  if (!parsed.success) throw new PlanFileError(`${file} is not a plan this Warden can read (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}): plan again`);
  const plan: PlanFile = parsed.data;
  const instance = instanceUrl(expect.gitlabUrl);
  if (plan.gitlabUrl !== instance) throw new PlanFileError(`${file} was made for ${plan.gitlabUrl}, not for GITLAB_URL's ${instance}: set GITLAB_URL to the instance the plan was made for, or plan again against this one`);
  const age = expect.now.getTime() - Date.parse(plan.createdAt);
  if (age < -CLOCK_SKEW_MS) throw new PlanFileError(`${file} was made at ${plan.createdAt}, in the future of this machine's clock (${expect.now.toISOString()}): check the clocks, or plan again`);
  if (age > expect.maxAgeMs) {
    throw new PlanFileError(`${file} was made at ${plan.createdAt}, ${duration(age)} ago, older than --max-plan-age (${duration(expect.maxAgeMs)}): plan again and review that plan, or raise --max-plan-age`);
  }
  const { text: policyText, sha256, ...recorded } = plan.policy;
  const policy = parsePolicy(policyText, `${file} (the plan's policy)`, recorded);
  if (policy.source.sha256 !== sha256) throw new PlanFileError(`${file}: its policy's text does not have the SHA-256 it records (${sha256}): plan again`);
  return { plan, policy };
}

/** The plan was signed with this key, and nothing it signed has changed; compared in constant time. */
function checkSignature({ signature, ...signed }: Record<string, unknown>, file: string, key: string): void {
  if (signature === undefined) throw new PlanFileError(`${file} is not signed, and WARDEN_PLAN_KEY is set: apply only a plan written by warden enforce --out with the same WARDEN_PLAN_KEY (plan again with it set)`);
  const expected = Buffer.from(signatureOf(signed, key));
  const given = Buffer.from(typeof signature === "string" ? signature : "");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new PlanFileError(`${file}: its signature does not verify with WARDEN_PLAN_KEY (it was edited, or signed with another key): plan again with warden enforce --out, and review that plan`);
  }
}

function signatureOf(content: object, key: string): string {
  return `hmac-sha256:${createHmac("sha256", key).update(canonicalJson(content), "utf8").digest("hex")}`;
}

/**
 * SHA-256 of the canonical JSON: keys sorted at every depth, no whitespace. `file`, for a plan read
 * back: one nested deeper than any plan is refused as not a plan (JsonTooDeepError), not hashed.
 */
function checksumOf(content: object, file?: string): string {
  let text: string;
  try {
    text = canonicalJson(content);
  } catch (err) {
    if (err instanceof JsonTooDeepError && file !== undefined) throw new PlanFileError(`${file} is not a Warden plan file: ${err.message}`);
    throw err;
  }
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An age in the unit a person would write it in: minutes below 2 hours, hours below 2 days. */
function duration(ms: number): string {
  return ms >= 48 * 3_600_000 ? `${(ms / 86_400_000).toFixed(1)} days` : ms >= 2 * 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} hours` : `${Math.round(ms / 60_000)} minutes`;
}

const id = z.int().positive();
// Who added the share rides along, so that apply's report and audit lines name them as enforce's did.
const addedBy = z.object({ name: z.string(), username: z.string().nullable(), at: z.string(), eventId: z.int() }).nullable();
const shared = {
  groupId: id, group: z.string().min(1), accessLevel: id, expiresAt: z.iso.date().nullable(), memberRoleId: id.optional(), reason: z.string(),
  addedBy: addedBy.optional(), attribution: z.enum(["not recorded", "not visible", "off"]).optional(),
};
const PlanSchema = z.object({
  format: z.literal(PLAN_FORMAT),
  formatVersion: z.literal(PLAN_FORMAT_VERSION),
  checksum: z.string(),
  signature: z.string().optional(),
  createdAt: z.iso.datetime(),
  wardenVersion: z.string(),
  gitlabUrl: z.url(),
  policy: z.union([
    z.object({ source: z.literal("file"), path: z.string(), sha256: z.string(), text: z.string() }),
    z.object({ source: z.literal("gitlab"), project: z.string(), projectId: z.number().int().positive().optional(), path: z.string(), ref: z.string(), commitId: z.string(), sha256: z.string(), text: z.string() }),
  ]),
  unmatchedRules: z.array(z.string()),
  removals: z.array(
    z.discriminatedUnion("type", [
      z.object({ type: z.literal(REMOVAL_TYPES.project), kind: z.literal("project"), projectId: id, project: z.string().min(1), ...shared }),
      z.object({ type: z.literal(REMOVAL_TYPES.group), kind: z.literal("group"), sharedGroupId: id, sharedGroup: z.string().min(1), ...shared }),
    ]),
  ),
});
