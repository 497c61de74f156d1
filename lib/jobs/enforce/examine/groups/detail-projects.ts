/**
 * Projects read with their groups' details, for a token that sees every group (others are not listed
 * every subgroup). `GET /groups/:id?with_projects=true` embeds up to 100 of the group's own projects,
 * shares included, and the examination reads every detail anyway for the shares groups make: a group
 * with fewer projects costs no request of its own; one with more has its own projects listed besides.
 * A GitLab whose details carry no projects, or leave some out (a sample shows it), has the scope
 * group listed instead or as well; a scope read whole in one slice is then swept for moves
 * (docs/how-enforce-works.md).
 */
import type { GroupDetail, Project } from "../../../../gitlab/index.ts";
import { projectSubject, unlessNotFound } from "../../../shares/kinds.ts";
import type { Examination, Sink } from "../context.ts";
import { answeredBefore, unjudged, type GroupListing } from "../ledger.ts";
import { nextPage } from "../projects/pages.ts";
import { sweepScope } from "../projects/sweep.ts";
import { PAUSED, PRIORITY } from "../slots.ts";
import { scopeListing, type DetailProjectsState } from "../work.ts";

/** GitLab embeds at most this many of a group's own projects in its detail. */
const EMBEDDED = 100;
/** A group the sample shows likely to hold this many projects or more has its listing started at once (10 pages). */
const HEAVY = 1_000;
/** What the sample counts a scope without a total as: GitLab leaves totals out above 10,000. */
const UNCOUNTED = 10_000;
/** Projects of the sample in no detail that show the details leave projects out (fewer: deleted or moved meanwhile). */
const UNCARRIED = 3;

/** The projects of one scope group's details, within one slice; where it stands is a DetailProjectsState. */
export class DetailProjects {
  private carried: boolean;
  /** Server time a little before the first detail was answered. */
  private since = Infinity;
  private details = 0;
  private readonly listed: Set<number>;
  private readonly listings: Promise<boolean>[] = [];
  private sampled: Promise<void> = Promise.resolve();
  /** The sample's projects in scope, each with its group: each must be judged by the end, or the details did not carry them all. */
  private readonly sampleGroups = new Map<number, number>();
  /** Groups whose detail failed in this slice: their projects were not judged, and say nothing of the details. */
  private readonly unread = new Set<number>();
  private readonly exam: Examination;
  private readonly sink: Sink;
  private readonly of: DetailProjectsState;
  /** The scope group's tree is read from its start in this slice, so a sweep can follow. */
  private readonly begun: boolean;

  constructor(exam: Examination, sink: Sink, of: DetailProjectsState, begun: boolean) {
    this.exam = exam;
    this.sink = sink;
    this.of = of;
    this.begun = begun;
    this.carried = of.carried !== false;
    this.listed = new Set(of.listed);
  }

  /** The group's detail with its projects (what the examination reads instead of the bare detail); undefined when gone. */
  async read(id: number): Promise<GroupDetail | undefined> {
    const sentAt = Date.now();
    const answer = await unlessNotFound(this.exam.gitlab.getGroupWithProjects(id, this.exam.signal));
    if (answer) this.since = Math.min(this.since, answeredBefore(answer.date, sentAt));
    return answer?.detail;
  }

  /** A group whose detail failed (not examined): whether its own projects were to come with it, and so were not examined either. */
  failed(id: number): boolean {
    this.unread.add(id);
    return this.carried && !this.listed.has(id);
  }

  /**
   * The scope group's subgroups could not all be listed (not examined, groups/index.ts): the groups not
   * listed bring no detail, so their projects would be judged by none. The scope group is listed as a
   * whole instead, as when the details carry no projects (the ledger judges each project once).
   */
  unlisted(): void {
    if (!this.carried) return;
    this.carried = false;
    this.listings.push(this.sink.spawn(scopeListing(this.of.root)));
  }

  /** Judges the projects a detail carries, and has a group with more than it carries listed. */
  judge(group: GroupDetail | undefined): void {
    if (!group || !this.carried || this.listed.has(group.id)) return;
    const { exam } = this;
    if (!Array.isArray(group.projects)) {
      this.carried = false;
      this.listings.push(this.sink.spawn(scopeListing(this.of.root)));
      return;
    }
    // The first detail (the scope group's) shows that details carry projects: the sample is worth its request.
    if (++this.details === 1 && this.begun) this.sampled = this.sample();
    const full = group.projects.length >= EMBEDDED;
    const listing: GroupListing = { group: group.id, path: group.full_path, own: true, ...(full ? {} : { whole: true }) };
    this.judgeProjects(unjudged(exam.ledger, group.projects, listing));
    if (full) this.list(group.id, group.full_path, group.projects.map((project) => project.id));
  }

  /** Lists a group's own projects beside the details, skipping those its detail carried (judged already). */
  private list(group: number, path: string, carried?: number[]): void {
    this.listed.add(group);
    this.listings.push(this.sink.spawn({ kind: "project", list: { group, own: true }, path, partOf: this.of.root.id, ...(carried ? { carried } : {}) }));
  }

  /**
   * A heavy group is found by its detail, which may come last of hundreds: its listing, the longest
   * chain of the examination, would then begin at its end. So once the scope group's detail shows
   * that details carry projects, its newest 100 projects are read as a sample (not judged: the details
   * and listings judge them), and a group likely to hold 1,000 projects or more by its share of the
   * sample has its own projects listed at once. A failed sample costs nothing but the head start (and
   * the check in `finish`).
   */
  private async sample(): Promise<void> {
    const { exam } = this;
    const { root } = this.of;
    const pages = exam.gitlab.listGroupProjects(root.id, { signal: exam.signal }, { sort: "desc" }).pages();
    try {
      const page = await nextPage(exam, pages, PRIORITY.opening);
      // Once paused, what is left is handed on as it stands: a listing begun now would be left out of it.
      if (page === PAUSED || page.done || page.value.items.length === 0 || exam.pause?.aborted) return;
      const { items, meta } = page.value;
      const total = typeof meta.total === "number" ? meta.total : UNCOUNTED;
      const counts = new Map<number, { path: string; n: number }>();
      const scope = `${root.path.toLowerCase()}/`;
      for (const { id, namespace } of items) {
        if (!namespace || namespace.kind === "user" || !`${namespace.full_path.toLowerCase()}/`.startsWith(scope)) continue;
        this.sampleGroups.set(id, namespace.id);
        const seen = counts.get(namespace.id) ?? { path: namespace.full_path, n: 0 };
        seen.n++;
        counts.set(namespace.id, seen);
      }
      for (const [group, { path, n }] of counts) if ((n / items.length) * total >= HEAVY && !this.listed.has(group)) this.list(group, path);
    } catch {
      // Without the head start, each group is found by its detail.
    } finally {
      await pages.return?.(undefined);
    }
  }

  /** Where it stands, for the work left to a later slice. */
  state(): DetailProjectsState {
    return { root: this.of.root, ...(this.carried ? {} : { carried: false as const }), ...(this.listed.size ? { listed: [...this.listed] } : {}) };
  }

  /**
   * Waits for the groups' own listings, then sweeps the scope group where all of it was read in this
   * slice (`complete`: every detail read) in more than one answer; and checks the details against the
   * sample: a GitLab (or something in front of it) whose details leave projects out would otherwise
   * pass for one whose scope is in policy. A project of the sample may have been deleted or moved out
   * of the scope meanwhile, so a few missing are let be; more, and the scope group is listed as well.
   */
  async finish(complete: boolean): Promise<void> {
    await this.sampled;
    const listed = (await Promise.all(this.listings)).every(Boolean);
    // Without carried projects the scope group's own listing sweeps it.
    if (!complete || !listed || !this.begun || !this.carried) return;
    const { exam } = this;
    const { root } = this.of;
    if (this.details + this.listings.length > 1) await sweepScope(exam, { group: root.id, path: root.path }, this.since, (projects) => this.judgeProjects(projects));
    let missing = 0;
    // A group whose detail or own listing failed (not examined, named so) says nothing of what details carry.
    const unexamined = new Set(exam.unexamined.parts.map((part) => part.id));
    for (const [id, group] of this.sampleGroups) if (!exam.ledger.judged.has(id) && !this.unread.has(group) && !unexamined.has(group)) missing++;
    if (missing < UNCARRIED) return;
    exam.warnings.push(`${missing} of ${this.sampleGroups.size} projects of ${root.path} listed as a sample were in no group's detail: GitLab's details leave projects out, so ${root.path}'s projects were listed as well`);
    await this.sink.spawn(scopeListing(root));
  }

  private judgeProjects(projects: Project[]): void {
    if (projects.length) this.sink.judge("project", projects.map(projectSubject));
  }
}
