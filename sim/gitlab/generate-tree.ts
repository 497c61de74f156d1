import type { Random } from "../shared/random.ts";
import type { SimGroup, Visibility } from "./dataset.ts";

/**
 * Uneven group trees for generateOrganisation (`tree` option), the shapes a balanced listing must
 * handle: one heavy subgroup holding a share of the projects, projects directly in the scope group,
 * and many small groups hung at random down to `maxDepth` levels (acme counts as level 1).
 */
export interface TreeShape {
  /** Small groups under acme (besides its fixed subgroups). */
  groups: number;
  /** Deepest level a group may sit at (acme = 1). */
  maxDepth: number;
  /** Share of the in-scope projects in the heavy subgroup `acme/monolith` itself (default 0). */
  heavy?: number;
  /** Share of the in-scope projects directly in acme (default 0). */
  root?: number;
}

const depth = (g: SimGroup): number => g.full_path.split("/").length;

/** Adds the tree's groups under acme; returns a picker of an in-scope owner that follows the shape. */
export function addTree(
  rng: Random,
  acme: SimGroup[],
  addGroup: (fullPath: string, name: string, visibility: Visibility) => SimGroup,
  shape: TreeShape,
): () => SimGroup {
  const root = acme[0]!;
  const heavy = addGroup(`${root.full_path}/monolith`, "Monolith", "internal");
  const nestable = acme.filter((g) => depth(g) < shape.maxDepth);
  const small = acme.slice(1);
  for (let n = 0; n < shape.groups; n++) {
    const parent = rng.pick(nestable);
    const group = addGroup(`${parent.full_path}/unit-${n}`, `Unit ${n}`, parent.visibility === "private" ? "private" : "internal");
    small.push(group);
    if (depth(group) < shape.maxDepth) nestable.push(group);
  }
  // The caller's list of acme's groups takes the new ones too (every owner is visited once first).
  acme.push(heavy, ...small.slice(acme.length - 1));
  const [heavyShare, rootShare] = [shape.heavy ?? 0, shape.root ?? 0];
  return () => {
    const r = rng.next();
    return r < heavyShare ? heavy : r < heavyShare + rootShare ? root : rng.pick(small);
  };
}
