/** What a new catalog takes away from the one published before it (app/service.ts refuses it unconfirmed). */
import { CATALOG_SECTIONS, type Catalog } from './types';

/** Per section, in catalog order, the uids of `previous` that `next` no longer has (sections that lose none left out). */
export function removedEntries(previous: Catalog, next: Catalog): { section: string; uids: string[] }[] {
  return CATALOG_SECTIONS.flatMap((section) => {
    const kept = new Set(next[section].map((entry) => entry.uid));
    // A version published before a section existed (segments) has none of it.
    const uids = (previous[section] ?? []).map((entry) => entry.uid).filter((uid) => !kept.has(uid));
    return uids.length > 0 ? [{ section, uids }] : [];
  });
}
