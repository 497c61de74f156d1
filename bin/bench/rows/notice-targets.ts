/**
 * The notices row's targets (issue 30, point 7), pure so test/bench tests them: a notice run adds over a
 * plain dry run only the notices listings (at most one page per 100 open notices, one at the least: an
 * empty listing is a page too; and, where a stray has no open notice, the notices closed recently,
 * which nobody closes in the bench: a page at most), as issue 30 asks: the token's own user, which
 * decides whether a notice counts, is the one the run's token check already read; the first applying
 * run opens exactly one notice per stray share, adding those POSTs and one look-up per person it
 * assigns; the second opens none and duplicates none.
 */
import type { NoticeSummary } from "../../../lib/jobs/notices/index.ts";
import type { Target } from "../row-kind.ts";

export const NOTICE_RUNS = ["plain dry run", "notify dry run", "notify apply", "notify apply again"] as const;
export type NoticeRunName = (typeof NOTICE_RUNS)[number];

export interface NoticeRun {
  run: NoticeRunName;
  wallMs: number;
  requests: number;
  /** GET …/issues (the open notices listing's pages), POST …/issues (notices opened), any other write. */
  listingPages: number;
  /** GET …/issues?state=closed: the pages of the notices closed recently (lib/jobs/notices/closed.ts). */
  closedPages: number;
  issuesOpened: number;
  otherWrites: number;
  /** The notices project's open issues after the run, and the shares their markers name (equal: no duplicate). */
  openNotices: number;
  noticedShares: number;
  notices?: NoticeSummary;
  /** The run's requests by route (--json has them: what a notice run adds, route by route). */
  byRoute?: Record<string, number>;
  error?: string;
}

export interface NoticesRow {
  projects: number;
  strays: number;
  /** The people attribution names as the strays' authors: an applying run looks each up once, to assign their notices. */
  authors: number;
  runs: NoticeRun[];
}

/** The listing pages a run may read with `open` notices open: 100 a page, one at the least. */
export const listingPages = (open: number): number => Math.max(1, Math.ceil(open / 100));

export function noticeTargets(row: NoticesRow): Target[] {
  const find = (name: NoticeRun["run"]) => row.runs.find((r) => r.run === name);
  const [plain, dry, apply, again] = [find("plain dry run"), find("notify dry run"), find("notify apply"), find("notify apply again")];
  if (!plain || !dry || !apply || !again) return [{ target: "notices: all four runs measured", met: false, measured: `${row.runs.length} of 4 runs` }];
  const added = (r: NoticeRun) => r.requests - plain.requests;
  const listings = (r: NoticeRun) => r.listingPages + r.closedPages;
  // The notices closed recently: none in the bench, so one page at most.
  const adds = (r: NoticeRun, open: number) => r.listingPages <= listingPages(open) && r.closedPages <= listingPages(0) && added(r) <= listings(r);
  const closed = (r: NoticeRun) => (r.closedPages ? `, ${r.closedPages} of closed notices` : "");
  // Requests a run sent beyond the plain dry run's of a route (a re-read of the token's user shows here).
  const more = (r: NoticeRun, route: string) => (r.byRoute?.[route] ?? 0) - (plain.byRoute?.[route] ?? 0);
  const extra = (r: NoticeRun) => (more(r, "GET /user") > 0 ? `, GET /user +${more(r, "GET /user")}` : "");
  const oneEach = (r: NoticeRun) => r.openNotices === row.strays && r.noticedShares === row.strays;
  const clean = (r: NoticeRun) => !r.error && r.otherWrites === 0;
  return [
    {
      target: "notices: a notify dry run sends only reads, and adds over a plain dry run only the notices listings (≤ 1 page per 100 open notices; of the closed ones, ≤ 1)",
      met: clean(dry) && !plain.error && dry.issuesOpened === 0 && adds(dry, 0),
      measured: `+${added(dry)} requests: ${dry.listingPages} listing page(s)${closed(dry)}${extra(dry)}; ${dry.issuesOpened + dry.otherWrites} writes`,
    },
    {
      target: "notices: the first applying run opens exactly one notice per stray share, and removes nothing within the grace",
      met: clean(apply) && apply.issuesOpened === row.strays && oneEach(apply),
      measured: `${apply.issuesOpened} opened for ${row.strays} strays, ${apply.openNotices} open (${apply.noticedShares} shares), ${apply.otherWrites} other writes`,
    },
    {
      target: "notices: the first applying run adds over a plain dry run only its notices (one POST each), the listings (the open ones again once it opened any) and one look-up per person assigned",
      met: added(apply) <= apply.issuesOpened + listings(apply) + row.authors && apply.listingPages <= listingPages(0) + listingPages(apply.openNotices) && apply.closedPages <= listingPages(0),
      measured: `+${added(apply)} requests: ${apply.issuesOpened} notices, ${apply.listingPages} listing page(s)${closed(apply)}, ${row.authors} people named${extra(apply)}`,
    },
    {
      target: "notices: a second applying run opens no notice and duplicates none (every one pending)",
      met: clean(again) && again.issuesOpened === 0 && oneEach(again) && again.notices?.pending === row.strays,
      measured: `${again.issuesOpened} opened, ${again.openNotices} open (${again.noticedShares} shares), ${again.notices?.pending ?? "?"} pending`,
    },
    {
      target: "notices: the second applying run adds over a plain dry run only the notices listings (≤ 1 page per 100 open notices; of the closed ones, ≤ 1)",
      met: adds(again, apply.openNotices),
      measured: `+${added(again)} requests: ${again.listingPages} listing page(s) for ${apply.openNotices} open notices${closed(again)}${extra(again)}`,
    },
  ];
}
