/** The workspace plan store: ports, index, locked atomic updates, checkpoints. No vscode, no fs. */
export * from './ports';
export * from './planIndex';
export * from './planStore';
