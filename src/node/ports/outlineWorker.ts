// The worker thread of OffThreadParser: computes the outline (the Markdown parse) of plan bodies,
// and reads and summarizes plan files for a cold index, so that the thread that asked (the
// extension host's, the CLI's) runs neither a long parse nor thousands of small ones itself.
// A body is scanned first (markdownGuard) and refused without a parse when it is over a cap; the
// thread that asked ends this worker if a parse overruns its deadline (it says when it begins one).
import { parentPort } from 'node:worker_threads';
import { inspectMarkdown, parseFailure } from '../../core/markdown/markdownGuard';
import { computeOutline } from '../../core/format/outline';
import { readEntries } from '../../store/planIndex';
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
  parentPort!.postMessage({ id: m.id, begun: true });
  const { refusal } = inspectMarkdown(m.body, { sections: true });
  if (refusal) {
    parentPort!.postMessage({ id: m.id, refused: refusal });
    return;
  }
  try {
    parentPort!.postMessage({ id: m.id, outline: computeOutline(m.body) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, refused: parseFailure(e) });
  }
});
