// The worker thread of OffThreadParser: computes the outline (the Markdown parse) of plan bodies,
// and reads and summarizes plan files for a cold index, so that the thread that asked (the
// extension host's, the CLI's) runs neither a long parse nor thousands of small ones itself.
import { parentPort } from 'node:worker_threads';
import { computeOutline } from '../core/outline';
import { readEntries } from '../store/planIndex';
import { NodeFileSystem } from './nodeFileSystem';

// Synchronous reads: this thread is nobody else's, and they cost a fraction of the asynchronous ones.
const fs = new NodeFileSystem({ blocking: true });

type Request = { id: number; body: string } | { id: number; index: { files: { name: string; path: string }[]; maxBytes: number } };

parentPort?.on('message', (m: Request) => {
  if ('index' in m) {
    readEntries(fs, m.index.files, m.index.maxBytes).then(
      (entries) => parentPort!.postMessage({ id: m.id, entries }),
      () => parentPort!.postMessage({ id: m.id }),
    );
    return;
  }
  try {
    parentPort!.postMessage({ id: m.id, outline: computeOutline(m.body) });
  } catch {
    parentPort!.postMessage({ id: m.id });
  }
});
