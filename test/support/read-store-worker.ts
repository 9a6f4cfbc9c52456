/** A worker thread holding a memory store, served over the port it is given (test/read-store.forwarded.test.ts). */
import { workerData, type MessagePort } from 'node:worker_threads';
import { serveReadStore } from '../../shared/adapters/read-store/forwarded';
import { MemoryReadStore } from '../../shared/adapters/read-store/memory';

const { port } = (workerData as { data: { port: MessagePort } }).data;
serveReadStore(new MemoryReadStore(), port);
port.on('close', () => process.exit(0));
