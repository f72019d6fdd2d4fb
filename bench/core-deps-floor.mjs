// The boot's floor (bench 6): a bare Node importing only the core dependencies a daemon cannot start without (XState,
// zod, LevelDB, ws, RxJS, pino), each from node_modules as its package exports it, and exiting.
await Promise.all(['xstate', 'zod', 'level', 'ws', 'rxjs', 'pino'].map((name) => import(name)));
