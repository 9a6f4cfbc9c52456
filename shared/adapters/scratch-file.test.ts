import fs from 'node:fs';
import { ScratchFile } from './scratch-file';

/** This process's open scratch files: SQLite's anonymous temporary databases. */
const openScratchFiles = (): string[] =>
  fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return target.includes('etilqs_') ? [target] : [];
    } catch {
      return [];
    }
  });

describe('ScratchFile', () => {
  it('keeps records past its page cache on a file unlinked from the start, and gone once closed', () => {
    const file = new ScratchFile();
    try {
      // 4 MiB: past the 2 MiB SQLite keeps in memory.
      const record = (n: number) => Buffer.alloc(1024, n % 256);
      for (let batch = 0; batch < 8; batch++)
        file.put(Array.from({ length: 512 }, (_, i) => [batch * 512 + i, `k${batch * 512 + i}`, record(i)] as const));
      const open = openScratchFiles();
      expect(open).toHaveLength(1);
      // No name to find it by: nothing is left behind, whatever stops the process.
      expect(open[0]).toMatch(/ \(deleted\)$/);
      expect(fs.existsSync(open[0].replace(/ \(deleted\)$/, ''))).toBe(false);
      expect(file.get('k1000')).toEqual(record(1000 - 512));
      // Replaced in place: its order stays.
      file.put([[3, 'k3', Buffer.from('again')]]);
      const all = [...file.inOrder()];
      expect(all).toHaveLength(4096);
      expect(all.map(([seq]) => seq)).toEqual([...Array(4096).keys()]);
      expect(all[3]).toEqual([3, 'k3', Buffer.from('again')]);
    } finally {
      file.close();
    }
    expect(openScratchFiles()).toEqual([]);
  });
});
