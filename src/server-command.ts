// How the server's process is started. `npm start` (package.json, kept equal by a test), the process tests
// and the bench all run this command, so what is measured and tested is what operators run.

/**
 * Node's options for the server: the young generation Node 20 gives by default, on every Node. A larger one
 * served more `GET /agents/me` but doubled execute's tail, since requests waiting on a provider are copied at
 * every scavenge (docs/benchmarks.md, The bare `node:http` reference); Node 24's default grows it to four
 * times that, and resident memory with it (docs/operations.md, Node versions).
 */
export const SERVER_NODE_OPTIONS: string[] = ['--max-semi-space-size=16'];

/** The arguments of `node` that run the server from the repository root: app/server.ts, bundled (src/start.cjs). */
export const SERVER_ARGS = [...SERVER_NODE_OPTIONS, 'src/start.cjs'];

/**
 * The server's environment beside the caller's (whose own value wins), for `npm start` and the bench's servers;
 * glibc reads it at process start, so the server cannot set it. Each setting keeps malloc from holding freed
 * memory resident (docs/operations.md, Footprint: malloc's arenas, trim threshold and mapping threshold).
 */
export const SERVER_ENV: Record<string, string> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '32768' };

/**
 * package.json's `start` script. npm forwards SIGTERM and SIGINT only to the `sh -c` running the script, whose
 * shell dies without passing them on; `exec` (and `env`, which execs node in turn) makes the server that
 * process, so it drains on the forwarded signal and npm exits once it has (docs/operations.md, Shutdown).
 */
export const START_SCRIPT = ['exec', 'env', ...Object.entries(SERVER_ENV).map(([k, v]) => `${k}=\${${k}:-${v}}`), 'node', ...SERVER_ARGS].join(' ');
