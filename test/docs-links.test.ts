/**
 * The README and the docs pages link to each other by relative paths and heading anchors: every
 * such link must name a file that exists and, into a Markdown file, a heading it has (GitHub's
 * anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered). A section moved
 * or renamed without its links fails here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, inline code spans left out. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, '')];
  });
}

/** The anchors GitHub gives a Markdown file's headings. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The relative links of a page (web and mail addresses left out), with their line. */
function relativeLinks(markdown: string): { line: number; target: string }[] {
  return prose(markdown).flatMap((text, i) =>
    [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1])
      .filter((target) => !/^[a-z]+:/i.test(target))
      .map((target) => ({ line: i + 1, target })),
  );
}

/** Links of `page` (a path from the root) that name no file, or no heading of the file they name. */
function brokenLinks(page: string, read: (file: string) => string | null): string[] {
  const markdown = read(page)!;
  return relativeLinks(markdown).flatMap(({ target }) => {
    const [file, anchor] = target.split('#');
    const resolved = file ? path.posix.normalize(path.posix.join(path.posix.dirname(page), file)) : page;
    const content = read(resolved);
    if (content === null) return [`${page}: ${target} (no file ${resolved})`];
    if (anchor === undefined || !resolved.endsWith('.md')) return [];
    return anchorsOf(content).has(anchor) ? [] : [`${page}: ${target} (no heading #${anchor} in ${resolved})`];
  });
}

function readFromDisk(file: string): string | null {
  const full = path.join(ROOT, file);
  if (!fs.existsSync(full)) return null;
  return fs.statSync(full).isDirectory() ? '' : fs.readFileSync(full, 'utf8');
}

describe('relative links of the README and docs/*.md', () => {
  it.each(PAGES)('%s: every one names an existing file and heading', (page) => {
    expect(brokenLinks(page, readFromDisk)).toEqual([]);
  });

  it('the README links every docs page', () => {
    const linked = new Set(relativeLinks(readFromDisk('README.md')!).map(({ target }) => target.split('#')[0]));
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('the README stays an entry page, under 15,000 bytes: reference sections live in docs/', () => {
    expect(Buffer.byteLength(readFromDisk('README.md')!)).toBeLessThan(15_000);
  });

  it('a link to a missing file or heading is found (the check can fail)', () => {
    const pages: Record<string, string> = {
      'README.md': [
        '# Title',
        '[ok](docs/a.md#safe-retries-idempotency-key) [ok too](docs/a.md#a-players-data-1)',
        '[gone](docs/b.md) [no such heading](docs/a.md#nowhere) [self](#title) [web](https://example.com/x)',
        '```sh',
        '[in code](docs/none.md)',
        '```',
      ].join('\n'),
      'docs/a.md': "## Safe retries: `Idempotency-Key`\n## A player's data\n## A player's data",
    };
    expect(brokenLinks('README.md', (file) => pages[file] ?? null)).toEqual([
      'README.md: docs/b.md (no file docs/b.md)',
      'README.md: docs/a.md#nowhere (no heading #nowhere in docs/a.md)',
    ]);
  });
});

/** The files the shell examples write by redirecting a command's output (`> draft.yaml`), as written. */
function filesWritten(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  return blocks.flatMap((block) =>
    block
      .split('\n')
      // Placeholders (`<id>`) and comments are not redirections.
      .map((line) => line.replace(/<[\w-]*>/g, '').replace(/(^|\s)#.*$/, ''))
      .flatMap((line) => [...line.matchAll(/(?:^|[^2&])>\s*([\w.][\w./-]*)/g)].map((m) => m[1])),
  );
}

describe('the files the examples write', () => {
  it('are ignored by git: a reader who follows the docs in the project leaves it clean', () => {
    const written = PAGES.flatMap((page) => filesWritten(readFromDisk(page)!));
    expect(written.length).toBeGreaterThanOrEqual(4);
    const tracked = written.filter((file) => {
      try {
        execFileSync('git', ['check-ignore', '--no-index', '-q', file], { cwd: ROOT });
        return false;
      } catch {
        return true;
      }
    });
    expect(tracked).toEqual([]);
  });
});
