import { catalogInForce } from '../command-api/publish-catalog/publish';
import { differingFields } from '../projections/verify';
import { loadCatalogFile } from '../shared/domain/catalog/load';
import { CATALOG_SECTIONS } from '../shared/domain/catalog/types';
import type { EventStore } from '../shared/adapters/event-store/port';
import { shown, writeLine } from './output';

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
