// The worker thread of OffThreadParser: computes the outline (the Markdown parse) of plan bodies
// so that the thread that asked (the extension host's) never runs a long parse itself.
import { parentPort } from 'node:worker_threads';
import { computeOutline } from '../core/outline';

parentPort?.on('message', (m: { id: number; body: string }) => {
  try {
    parentPort!.postMessage({ id: m.id, outline: computeOutline(m.body) });
  } catch {
    parentPort!.postMessage({ id: m.id });
  }
});
