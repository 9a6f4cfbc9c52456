/**
 * What a heap snapshot's memory belongs to: `node --max-old-space-size=12000 --import tsx
 * bench/heap-owners.ts A.heapsnapshot [B.heapsnapshot PLAYERS]`. Prints the dominator tree (each
 * object's retained size: what collecting it would free), expanded down to 1 % of the heap; with
 * two snapshots, what each owner grew from A to B, divided by the players B has more (bytes per
 * player), and the same per kind of object by self size.
 */
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Heap {
  labels: string[];
  /** Per node: its self size, its immediate dominator, its retained size, the edge name it hangs by. */
  self: Float64Array;
  idom: Int32Array;
  retained: Float64Array;
  via: string[];
  /** Nodes in an order where each comes after its dominator. */
  order: Int32Array;
}

function load(file: string): Heap {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [typeAt, nameAt, selfAt, countAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    meta.node_fields.indexOf(f),
  );
  const [eTypeAt, eNameAt, eToAt] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const n = snap.nodes.length / nf;
  const self = new Float64Array(n);
  const labels: string[] = new Array(n);
  const firstEdge = new Int32Array(n + 1);
  for (let i = 0, e = 0; i < n; i++) {
    firstEdge[i] = e;
    e += snap.nodes[i * nf + countAt];
    firstEdge[i + 1] = e;
    self[i] = snap.nodes[i * nf + selfAt];
    const type = nodeTypes[snap.nodes[i * nf + typeAt]];
    const name = snap.strings[snap.nodes[i * nf + nameAt]];
    labels[i] =
      type === 'object' || type === 'closure'
        ? `${type === 'closure' ? 'fn ' : ''}${name.slice(0, 60)}`
        : type === 'string' || type === 'concatenated string' || type === 'sliced string'
          ? `(${type})`
          : type === 'number'
            ? '(number)'
            : `(${type}) ${name.slice(0, 40)}`;
  }
  const to = (e: number) => snap.edges[e * ef + eToAt] / nf;
  // The read store's collections are told apart by their names.
  for (let i = 0; i < n; i++) {
    if (labels[i] !== 'Documents') continue;
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++) {
      if (snap.strings[snap.edges[e * ef + eNameAt]] !== 'collection') continue;
      labels[i] += ` ${snap.strings[snap.nodes[to(e) * nf + nameAt]]}`;
    }
  }
  const edgeName = (e: number) => {
    const type = edgeTypes[snap.edges[e * ef + eTypeAt]];
    const name = snap.edges[e * ef + eNameAt];
    return type === 'element' || type === 'hidden' ? `[${name}]` : String(snap.strings[name]);
  };
  // Depth-first post-order from the root (node 0), over strong edges.
  const post = new Int32Array(n).fill(-1);
  const order: number[] = [];
  const stack: number[] = [0];
  const cursor = new Int32Array(n);
  const seen = new Uint8Array(n);
  seen[0] = 1;
  for (let i = 0; i < n; i++) cursor[i] = firstEdge[i];
  while (stack.length) {
    const v = stack[stack.length - 1];
    if (cursor[v] < firstEdge[v + 1]) {
      const e = cursor[v]++;
      if (snap.edges[e * ef + eTypeAt] === weak) continue;
      const w = to(e);
      if (!seen[w]) {
        seen[w] = 1;
        stack.push(w);
      }
    } else {
      post[v] = order.length;
      order.push(v);
      stack.pop();
    }
  }
  // Predecessors of each reached node.
  const predCount = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (!seen[v]) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++)
      if (snap.edges[e * ef + eTypeAt] !== weak) predCount[to(e) + 1]++;
  }
  for (let i = 0; i < n; i++) predCount[i + 1] += predCount[i];
  const preds = new Int32Array(predCount[n]);
  const fill = predCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (!seen[v]) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e++)
      if (snap.edges[e * ef + eTypeAt] !== weak) preds[fill[to(e)]++] = v;
  }
  // Cooper, Harvey and Kennedy's iterative dominators, on post-order numbers.
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (post[a] < post[b]) a = idom[a];
      while (post[b] < post[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = order.length - 2; k >= 0; k--) {
      const v = order[k];
      let next = -1;
      for (let p = predCount[v]; p < predCount[v + 1]; p++) {
        const u = preds[p];
        if (idom[u] === -1) continue;
        next = next === -1 ? u : intersect(u, next);
      }
      if (next !== idom[v]) {
        idom[v] = next;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(n);
  for (const v of order) retained[v] += self[v];
  for (const v of order) if (v !== 0) retained[idom[v]] += retained[v];
  const via: string[] = new Array(n).fill('');
  for (const v of order) {
    if (v === 0) continue;
    const d = idom[v];
    for (let e = firstEdge[d]; e < firstEdge[d + 1]; e++)
      if (to(e) === v) {
        via[v] = edgeName(e);
        break;
      }
  }
  return { labels, self, idom, retained, via, order: Int32Array.from(order).reverse() };
}

/** Owners by path from the root, kept while they retain at least `floor` bytes, with their retained size. */
function owners(heap: Heap, floor: number): Map<string, number> {
  const path = new Map<number, string>([[0, '']]);
  const out = new Map<string, number>();
  for (const v of heap.order) {
    if (v === 0 || heap.retained[v] < floor) continue;
    const parent = path.get(heap.idom[v]);
    if (parent === undefined) continue;
    // Array elements and Map slots are told apart by kind, not by number: their sum is what counts.
    const via = /^\[\d+\]$/.test(heap.via[v]) ? '[i]' : heap.via[v];
    const key = `${parent} > ${via ? `${via}:` : ''}${heap.labels[v]}`;
    path.set(v, key);
    out.set(key, (out.get(key) ?? 0) + heap.retained[v]);
  }
  return out;
}

function byKind(heap: Heap): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of heap.order) out.set(heap.labels[v], (out.get(heap.labels[v]) ?? 0) + heap.self[v]);
  return out;
}

const MIB = 1024 ** 2;
const [fileA, fileB, playersText] = process.argv.slice(2);
const a = load(fileA);
const total = a.retained[0];
console.log(`${fileA}: ${(total / MIB).toFixed(1)} MiB reachable`);
if (!fileB) {
  for (const [key, size] of [...owners(a, total / 100)].sort((x, y) => y[1] - x[1]).slice(0, 60))
    console.log(`${(size / MIB).toFixed(1).padStart(8)} MiB  ${key}`);
} else {
  const b = load(fileB);
  const players = Number(playersText);
  console.log(`${fileB}: ${(b.retained[0] / MIB).toFixed(1)} MiB reachable; ${players} players more`);
  const perPlayer = (x: Map<string, number>, y: Map<string, number>) =>
    [...new Set([...x.keys(), ...y.keys()])]
      .map((key) => [key, ((y.get(key) ?? 0) - (x.get(key) ?? 0)) / players] as const)
      .sort((p, q) => Math.abs(q[1]) - Math.abs(p[1]));
  console.log(`\nbytes per player, total: ${((b.retained[0] - total) / players).toFixed(0)}\n\nby owner (retained):`);
  const floor = (b.retained[0] - total) / 200;
  for (const [key, bytes] of perPlayer(owners(a, floor), owners(b, floor)).slice(0, 70))
    if (Math.abs(bytes) >= 8) console.log(`${bytes.toFixed(0).padStart(8)} B  ${key}`);
  console.log('\nby kind (self size):');
  for (const [key, bytes] of perPlayer(byKind(a), byKind(b)).slice(0, 30))
    console.log(`${bytes.toFixed(0).padStart(8)} B  ${key}`);
}
