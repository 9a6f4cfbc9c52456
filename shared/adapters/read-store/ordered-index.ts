/**
 * An index of the embedded read store: a collection's documents ordered by the fields of a
 * declared index (ensureIndex), in a B+ tree whose nodes know how many entries they hold. A query
 * that pins a prefix of the fields by equality, optionally bounds the next one, and sorts by the
 * fields that follow is a range of positions in that order: counting it costs O(log n), reading a
 * page of it O(log n + page), skip included. Leaderboards are the reason (standings, a player's
 * rank and their neighbours on a board and period of a million players), but nothing in it is
 * particular to them.
 *
 * Answers are exactly those of a scan: values are compared as the scan's sort compares them
 * (mingo's `compare`), ties of every field in the order the collection's Map iterates (each
 * document's insertion number, kept when the document is replaced). Where an
 * answer could differ (an array or object in an indexed field, whose matching and sorting follow
 * other rules; a range over a field holding values of several types), `plan` says so and the
 * store scans instead.
 *
 * An entry is the document's slot, a small integer its collection gives it (Slots): the tree
 * holds slots, and the indexed values are kept in one array per field by slot, so that a
 * document costs the index a few pointers rather than an array and a Map entry of its own
 * (figure 6 of the benchmarks: the read models of a million players live in these indexes).
 */
import { compare, resolve } from 'mingo/util';
import type { Document, Filter, IndexKeys, Sort } from './port';

/** A document's slot in its collection (Slots). */
type Entry = number;

/** A collection's documents by slot, as its indexes read them; a slot is reused once its document is deleted. */
export interface Slots {
  /** Each slot's _id (undefined: free). */
  readonly ids: readonly (string | undefined)[];
  /** Each slot's insertion number: the order of the collection's Map, which breaks ties as a scan would. */
  readonly inserted: readonly number[];
}

/** Entries a leaf holds, children a branch holds, at most; a node splits in two above. */
const NODE_MAX = 64;

interface Leaf {
  leaf: true;
  items: Entry[];
}
interface Branch {
  leaf: false;
  children: Node[];
  /** The first entry of each child, to choose where to descend. */
  firsts: Entry[];
  /** Entries under this branch. */
  size: number;
}
type Node = Leaf | Branch;

const sizeOf = (node: Node): number => (node.leaf ? node.items.length : node.size);
const firstOf = (node: Node): Entry => (node.leaf ? node.items[0] : node.firsts[0]);

/** A B+ tree of entries in the order `order` gives (negative: a first), every entry distinct. */
class CountedTree {
  private root: Node = { leaf: true, items: [] };

  constructor(private readonly order: (a: Entry, b: Entry) => number) {}

  get size(): number {
    return sizeOf(this.root);
  }

  clear(): void {
    this.root = { leaf: true, items: [] };
  }

  insert(entry: Entry): void {
    const path: [Branch, number][] = [];
    let node = this.root;
    while (!node.leaf) {
      const i = Math.max(0, this.lastAtOrBefore(node.firsts, entry));
      path.push([node, i]);
      node = node.children[i];
    }
    const items = node.items;
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.order(items[middle], entry) < 0) low = middle + 1;
      else high = middle;
    }
    items.splice(low, 0, entry);
    let split: Node | null = items.length > NODE_MAX ? { leaf: true, items: items.splice(items.length >>> 1) } : null;
    let child: Node = node;
    for (let k = path.length - 1; k >= 0; k--) {
      const [branch, i] = path[k];
      branch.size++;
      branch.firsts[i] = firstOf(child);
      if (split) {
        branch.children.splice(i + 1, 0, split);
        branch.firsts.splice(i + 1, 0, firstOf(split));
        split = branch.children.length > NODE_MAX ? this.splitBranch(branch) : null;
      }
      child = branch;
    }
    if (split) this.root = this.branchOf([this.root, split]);
  }

  /** Removes an entry the tree holds (one equal to it under `order`). */
  remove(entry: Entry): void {
    const path: [Branch, number][] = [];
    let node = this.root;
    while (!node.leaf) {
      const i = this.lastAtOrBefore(node.firsts, entry);
      if (i < 0) return;
      path.push([node, i]);
      node = node.children[i];
    }
    const index = this.lastAtOrBefore(node.items, entry);
    if (index < 0 || this.order(node.items[index], entry) !== 0) return;
    node.items.splice(index, 1);
    let child: Node = node;
    for (let k = path.length - 1; k >= 0; k--) {
      const [branch, i] = path[k];
      branch.size--;
      if (sizeOf(child) === 0) {
        branch.children.splice(i, 1);
        branch.firsts.splice(i, 1);
      } else {
        branch.firsts[i] = firstOf(child);
        if (child.leaf) this.mergeSmallLeaf(branch, i);
      }
      child = branch;
    }
    // A root left with one child gives way to it, so the tree is no deeper than it needs to be.
    while (!this.root.leaf && this.root.children.length === 1) this.root = this.root.children[0];
    if (!this.root.leaf && this.root.children.length === 0) this.clear();
  }

  /** How many entries come before the first one for which `isAfter` holds (it holds for a suffix of the order). */
  countBefore(isAfter: (entry: Entry) => boolean): number {
    let count = 0;
    let node = this.root;
    while (!node.leaf) {
      // The last child whose first entry is still before the boundary holds the boundary.
      let low = 0;
      let high = node.firsts.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (isAfter(node.firsts[middle])) high = middle;
        else low = middle + 1;
      }
      if (low === 0) return count;
      for (let c = 0; c < low - 1; c++) count += sizeOf(node.children[c]);
      node = node.children[low - 1];
    }
    let low = 0;
    let high = node.items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (isAfter(node.items[middle])) high = middle;
      else low = middle + 1;
    }
    return count + low;
  }

  /** The entries at positions [start, end) of the order. */
  slice(start: number, end: number): Entry[] {
    const out: Entry[] = [];
    const visit = (node: Node, from: number, to: number): void => {
      if (node.leaf) {
        for (let i = from; i < to; i++) out.push(node.items[i]);
        return;
      }
      let offset = 0;
      for (const child of node.children) {
        const size = sizeOf(child);
        if (offset + size > from && offset < to) visit(child, Math.max(0, from - offset), Math.min(size, to - offset));
        offset += size;
        if (offset >= to) return;
      }
    };
    if (start < end) visit(this.root, start, end);
    return out;
  }

  /** The index of the last of `entries` (in order) at or before `entry`; -1 when all come after. */
  private lastAtOrBefore(entries: Entry[], entry: Entry): number {
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.order(entries[middle], entry) <= 0) low = middle + 1;
      else high = middle;
    }
    return low - 1;
  }

  private branchOf(children: Node[]): Branch {
    return {
      leaf: false,
      children,
      firsts: children.map(firstOf),
      size: children.reduce((sum, c) => sum + sizeOf(c), 0),
    };
  }

  /** Moves the second half of an overfull branch's children to a new branch, returned. */
  private splitBranch(branch: Branch): Branch {
    const moved = this.branchOf(branch.children.splice(branch.children.length >>> 1));
    branch.firsts.length = branch.children.length;
    branch.size -= moved.size;
    return moved;
  }

  /** A leaf down to a quarter full joins a neighbour with room, so that removals do not leave the tree sparse. */
  private mergeSmallLeaf(parent: Branch, i: number): void {
    const leaf = parent.children[i] as Leaf;
    if (leaf.items.length * 4 > NODE_MAX) return;
    for (const j of [i - 1, i + 1]) {
      const neighbour = parent.children[j];
      if (!neighbour?.leaf || neighbour.items.length + leaf.items.length > NODE_MAX) continue;
      const [left, right] = j < i ? [neighbour, leaf] : [leaf, neighbour];
      left.items.push(...right.items);
      const at = j < i ? i : j;
      parent.children.splice(at, 1);
      parent.firsts.splice(at, 1);
      return;
    }
  }
}

/** Same order as the scan's sort (mingo's compare), without its type dispatch for the common cases. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'string'))
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  return compare(a, b);
}

/** A value an equality or a bound of a query may name for the index to answer it. */
const isPlainScalar = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));

/** A value an index orders as a scan sorts and matches it: a scalar, null, or missing. */
const isOrderable = (value: unknown): boolean => value === undefined || value === null || isPlainScalar(value);

const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte']);

/** The positions [start, end) of a query's documents in an index's order. */
export interface IndexRange {
  start: number;
  end: number;
}

export class OrderedIndex {
  readonly fields: string[];
  private readonly directions: (1 | -1)[];
  private readonly tree: CountedTree;
  /** Per field, each slot's value (undefined for a free slot, as for a missing field: only the tree says which slots are in). */
  private readonly values: unknown[][];
  /** Entries with a value the index cannot order as a scan would (an array, an object, NaN). */
  private unorderable = 0;
  /** Per field, how many entries hold a value of each type (typeof; null as 'null'). */
  private readonly types: Map<string, number>[];

  constructor(
    readonly keys: IndexKeys,
    slots: Slots,
  ) {
    this.fields = Object.keys(keys);
    this.directions = this.fields.map((f) => keys[f]);
    this.types = this.fields.map(() => new Map());
    this.values = this.fields.map(() => []);
    const n = this.fields.length;
    const { values, directions } = this;
    this.tree = new CountedTree((a, b) => {
      for (let i = 0; i < n; i++) {
        const column = values[i];
        const c = compareValues(column[a], column[b]);
        if (c !== 0) return directions[i] === 1 ? c : -c;
      }
      return slots.inserted[a] - slots.inserted[b];
    });
  }

  /**
   * The document at `slot` stored: inserted, or (`replacing`) taking the place of the one the slot
   * held, whose insertion number, and so whose place among ties, it keeps.
   */
  set(slot: number, doc: Document, replacing: boolean): void {
    if (replacing) this.forget(slot);
    let orderable = true;
    for (let i = 0; i < this.fields.length; i++) {
      const value = resolve(doc, this.fields[i]);
      const column = this.values[i];
      // Filled up to the slot, so that the array stays a dense one (a far write would make it a dictionary).
      while (column.length < slot) column.push(undefined);
      column[slot] = value;
      if (!isOrderable(value)) orderable = false;
      this.types[i].set(typeName(value), (this.types[i].get(typeName(value)) ?? 0) + 1);
    }
    if (!orderable) this.unorderable++;
    this.tree.insert(slot);
  }

  /** The document at `slot` deleted. */
  delete(slot: number): void {
    this.forget(slot);
    for (const column of this.values) if (slot < column.length) column[slot] = undefined;
  }

  clear(): void {
    this.tree.clear();
    for (const column of this.values) column.length = 0;
    this.unorderable = 0;
    for (const types of this.types) types.clear();
  }

  /**
   * Where the documents a filter matches lie in this index's order, when the index alone answers
   * it exactly: the filter pins a prefix of the fields by equality and may bound the next one
   * ($gt, $gte, $lt, $lte). With a sort, the sort must be the fields after the prefix (or from
   * within it) in the index's directions, so that the range is also the sorted answer. Null
   * when a scan must answer.
   */
  plan(filter: Filter, sort?: Sort): IndexRange | null {
    if (this.unorderable > 0) return null;
    const keys = Object.keys(filter);
    const pinned: unknown[] = [];
    while (pinned.length < this.fields.length && isPlainScalar(filter[this.fields[pinned.length]]))
      pinned.push(filter[this.fields[pinned.length]]);
    const m = pinned.length;
    const bound = m < this.fields.length ? filter[this.fields[m]] : undefined;
    const bounds =
      bound !== undefined && typeof bound === 'object' && bound !== null && !Array.isArray(bound)
        ? Object.entries(bound)
        : null;
    if (keys.length !== m + (bounds ? 1 : 0) || (bound !== undefined && !bounds)) return null;
    if (sort && !this.sortsAsIndex(sort, m)) return null;
    const total = this.tree.size;
    // Entries after the pinned prefix (or at it, with `inclusive`), compared on the first `values.length` fields.
    const before = (values: unknown[], inclusive: boolean) =>
      this.tree.countBefore((entry) => {
        for (let i = 0; i < values.length; i++) {
          const c = compareValues(this.values[i][entry], values[i]);
          if (c !== 0) return (this.directions[i] === 1 ? c : -c) > 0;
        }
        return !inclusive;
      });
    let start = m ? before(pinned, false) : 0;
    let end = m ? before(pinned, true) : total;
    if (bounds) {
      if (bounds.length === 0) return null;
      const ascending = this.directions[m] === 1;
      for (const [operator, value] of bounds) {
        // A range compares values of its bound's type only; the index compares across types.
        if (!RANGE_OPERATORS.has(operator) || !isPlainScalar(value) || this.types[m].get(typeof value) !== total)
          return null;
        const at = [...pinned, value];
        // Where the values below the bound end, and where those up to it end, in the index's order.
        const lower = operator === '$gt' || operator === '$lte';
        const edge = before(at, ascending ? lower : !lower);
        if ((operator === '$gt' || operator === '$gte') === ascending) start = Math.max(start, edge);
        else end = Math.min(end, edge);
      }
    }
    return { start, end: Math.max(start, end) };
  }

  /** The slots at positions [start, end) of the index's order. */
  slotsAt(start: number, end: number): number[] {
    return this.tree.slice(start, end);
  }

  /** Whether sorting by `sort` gives the index's order for documents that share the first `pinned` fields. */
  private sortsAsIndex(sort: Sort, pinned: number): boolean {
    const keys = Object.keys(sort);
    const from = this.fields.length - keys.length;
    return (
      from >= 0 &&
      from <= pinned &&
      keys.every((key, i) => key === this.fields[from + i] && sort[key] === this.directions[from + i])
    );
  }

  /** Takes the slot's entry out of the order and the counts, while its values are still those it was ordered by. */
  private forget(slot: number): void {
    this.tree.remove(slot);
    let orderable = true;
    this.values.forEach((column, i) => {
      const value = column[slot];
      if (!isOrderable(value)) orderable = false;
      const left = this.types[i].get(typeName(value))! - 1;
      if (left === 0) this.types[i].delete(typeName(value));
      else this.types[i].set(typeName(value), left);
    });
    if (!orderable) this.unorderable--;
  }
}

const typeName = (value: unknown): string => (value === null ? 'null' : typeof value);
