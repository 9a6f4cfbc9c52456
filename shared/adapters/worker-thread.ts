import { Worker, type TransferListItem } from 'node:worker_threads';

/**
 * Loads the module in the worker: TypeScript through tsx's require hook (the service runs from
 * its sources under tsx, and ts-jest's transform does not reach worker threads), so it runs the
 * same under `node --import tsx`, ts-jest and compiled code.
 */
const LOADER = `
const { workerData } = require('node:worker_threads');
if (workerData.module.endsWith('.ts')) require('tsx/cjs');
require(workerData.module);
`;

/** Starts a worker thread running `module` (an absolute file name), which reads `data` from `workerData.data`. */
export function startWorker(module: string, data: unknown, transferList: TransferListItem[] = []): Worker {
  return new Worker(LOADER, { eval: true, workerData: { module, data }, transferList });
}
