import { catalogInForce } from '../command-api/publish-catalog/publish';
import { differingFields } from '../projections/verify';
import { loadCatalogFile } from '../domain/catalog/load';
import { CATALOG_SECTIONS } from '../domain/catalog/types';
import type { EventStore } from '../shared/adapters/event-store/port';
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { RunConfig } from '../shared/adapters/config/env';
import { iso, shown, UsageError, writeLine } from './output';
import { askServer, type ServerOptions } from './server';

/** `catalog validate <file>`: one line per problem, exit 1 when there is any. */
export async function validateCatalog(file: string): Promise<number> {
  const loaded = await loadCatalogFile(file);
  if (!loaded.ok) {
    for (const problem of loaded.problems) await writeLine(problem);
    return 1;
  }
  await writeLine(`${file}: valid (hash ${loaded.hash.slice(0, 12)})`);
  return 0;
}

/** `catalog diff <file>`: what publishing the file would change, against the version in force, by uid. */
export async function diffCatalog(events: EventStore, file: string): Promise<number> {
  const loaded = await loadCatalogFile(file);
  if (!loaded.ok) {
    for (const problem of loaded.problems) await writeLine(problem);
    return 1;
  }
  const published = await catalogInForce(events, Date.now());
  if (!published) {
    await writeLine('no catalog published yet: every entry is new');
  } else if (published.hash === loaded.hash) {
    await writeLine(`same as version ${published.version}, in force`);
    return 0;
  } else {
    await writeLine(`against version ${published.version}, in force (hash ${published.hash.slice(0, 12)}):`);
    const settings = differingFields(published.catalog.settings, loaded.catalog.settings);
    await writeLine(settings.length ? 'settings:' : 'settings: unchanged');
    for (const [field, before, after] of settings) await writeLine(`  ~ ${field}: ${shown(before)} -> ${shown(after)}`);
  }
  for (const section of CATALOG_SECTIONS) {
    for (const line of sectionDiff(section, published?.catalog[section] ?? [], loaded.catalog[section]))
      await writeLine(line);
  }
  return 0;
}

function sectionDiff(section: string, before: readonly { uid: string }[], after: readonly { uid: string }[]): string[] {
  const old = new Map(before.map((e) => [e.uid, e]));
  const now = new Map(after.map((e) => [e.uid, e]));
  const lines: string[] = [];
  for (const [uid, e] of now) if (!old.has(uid)) lines.push(`  + ${entryName(e)}`);
  for (const [uid, e] of old) if (!now.has(uid)) lines.push(`  - ${entryName(e)}`);
  for (const [uid, e] of now) {
    const fields = old.has(uid) ? differingFields(old.get(uid), e).map(([field]) => field) : [];
    if (fields.length) lines.push(`  ~ ${entryName(e)}: ${fields.join(', ')}`);
  }
  return [lines.length ? `${section}:` : `${section}: unchanged`, ...lines];
}

/** The uid, with the action identifier or the label a person recognises. */
function entryName(entry: { uid: string }): string {
  const { identifier, label } = entry as { identifier?: unknown; label?: unknown };
  const known = typeof identifier === 'string' ? identifier : typeof label === 'string' ? label : null;
  return known ? `${entry.uid} (${known})` : entry.uid;
}

/** A version as GET /v1/admin/catalog/versions lists it. */
interface VersionView {
  version: number;
  status: string;
  source: string;
  publishedAt: number;
  publishedBy: string;
  comment: string | null;
  effectiveAt: number;
  until: number | null;
}

/** The newest version's number, which a publication names as the one it follows. */
async function newestVersion(command: string, config: RunConfig, options: ServerOptions): Promise<number> {
  const versions = await askServer<VersionView[]>(command, config, options, {
    method: 'GET',
    path: '/v1/admin/catalog/versions',
  });
  return versions[0]?.version ?? 0;
}

/** An ISO time of an option as Unix ms. */
function timeOption(command: string, option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms))
    throw new UsageError(`${command}: ${option} takes an ISO time (2026-12-24T18:00:00Z), got "${value}"`);
  return ms;
}

const publishedLine = (p: { version: number; status: string; effectiveAt: number; until: number | null }) =>
  `version ${p.version}: ${p.status}, in force from ${iso(p.effectiveAt)}${p.until === null ? '' : ` until ${iso(p.until)}`}`;

/** `catalog publish <file>`: the file published through the running service as the next version, now or at --at (until --until). */
export async function publishCatalogFile(
  config: RunConfig,
  options: ServerOptions & { file: string; comment?: string; at?: string; until?: string },
): Promise<number> {
  const command = 'catalog publish';
  const effectiveAt = timeOption(command, '--at', options.at);
  const until = timeOption(command, '--until', options.until);
  let yaml: string;
  try {
    yaml = await readFile(options.file, 'utf8');
  } catch (error) {
    throw new UsageError(`${command}: cannot read ${options.file} (${(error as Error).message})`);
  }
  const expectedVersion = await newestVersion(command, config, options);
  const published = await askServer<{ version: number; status: string; effectiveAt: number; until: number | null }>(
    command,
    config,
    options,
    {
      method: 'POST',
      path: '/v1/admin/catalog/publish',
      body: { yaml, expectedVersion, comment: options.comment, effectiveAt, until },
    },
  );
  await writeLine(
    published.version <= expectedVersion
      ? `same as version ${published.version}, in force: nothing published`
      : publishedLine(published),
  );
  return 0;
}

/** `catalog versions`: every version, newest first. */
export async function listVersions(config: RunConfig, options: ServerOptions): Promise<number> {
  const versions = await askServer<VersionView[]>('catalog versions', config, options, {
    method: 'GET',
    path: '/v1/admin/catalog/versions',
  });
  for (const v of versions)
    await writeLine(
      `v${v.version}  ${v.status.padEnd(10)}  ${v.source.padEnd(4)}  by ${v.publishedBy}  ${iso(v.publishedAt)}  from ${iso(v.effectiveAt)}${v.until === null ? '' : ` until ${iso(v.until)}`}${v.comment ? `  ${v.comment}` : ''}`,
    );
  return 0;
}

/** `catalog show <version>`: a version's catalog, as a catalog file. */
export async function showVersion(config: RunConfig, options: ServerOptions & { version: string }): Promise<number> {
  if (!/^\d+$/.test(options.version))
    throw new UsageError(`catalog show: the version is a whole number, got "${options.version}"`);
  const v = await askServer<VersionView & { catalog: unknown }>('catalog show', config, options, {
    method: 'GET',
    path: `/v1/admin/catalog/versions/${options.version}`,
  });
  await writeLine(stringify(v.catalog).trimEnd());
  return 0;
}

/** `catalog revert <version>`: that version's content published again as the next version. */
export async function revertVersion(
  config: RunConfig,
  options: ServerOptions & { version: string; comment?: string },
): Promise<number> {
  const command = 'catalog revert';
  if (!/^\d+$/.test(options.version))
    throw new UsageError(`${command}: the version is a whole number, got "${options.version}"`);
  const expectedVersion = await newestVersion(command, config, options);
  const published = await askServer<{ version: number; status: string; effectiveAt: number; until: number | null }>(
    command,
    config,
    options,
    {
      method: 'POST',
      path: '/v1/admin/catalog/revert',
      body: { version: Number(options.version), expectedVersion, comment: options.comment },
    },
  );
  await writeLine(publishedLine(published));
  return 0;
}
