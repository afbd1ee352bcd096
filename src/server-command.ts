// How the server's process is started. `npm start` (package.json, kept equal by a test), the process tests
// and the bench all run this command, so what is measured and tested is what operators run.

/**
 * Node's options for the server: none. Young-generation semi-spaces of 64 MiB (`--max-semi-space-size=64`)
 * served about 15% more `GET /agents/me` a second, but doubled execute's p99 above the direct call
 * (46 ms against 35, same machine, alternating runs): requests that wait 20 ms on a provider are alive at
 * every scavenge, and a larger nursery copies more of them each time (docs/benchmarks.md).
 */
export const SERVER_NODE_OPTIONS: string[] = [];

/** The arguments of `node` that run the server from the repository root: src/server.ts, bundled (src/start.cjs). */
export const SERVER_ARGS = [...SERVER_NODE_OPTIONS, 'src/start.cjs'];

/**
 * The server's environment beside the caller's (the caller's own value wins): `npm start` and the bench's
 * servers run with it (the process tests, which measure no memory, without). glibc reads both when the
 * process starts, so they are set here rather than by the server (docs/operations.md, Footprint).
 *
 * MALLOC_ARENA_MAX=2: glibc's malloc gives each thread that allocates an arena of its own, up to eight per
 * core, and keeps what each grew to; the server's threads (libuv's pool, V8's helpers, the embedded
 * database's) held 40-50 MiB more that way, idle, on either database. GET /agents/me lost nothing to it:
 * 15.2k requests a second with two against 11.6k with sixteen (glibc's own limit on two cores), one after
 * the other on the same machine.
 *
 * MALLOC_TRIM_THRESHOLD_=131072: glibc returns the free memory at the top of an arena once it passes this,
 * and by default raises the bar to twice the largest block it ever mapped on its own (up to 64 MiB), which a
 * start's large buffers push it to: 10 s after a start the arenas held 101 MiB, 22 of it in use. Set, the bar
 * stays at glibc's starting 128 KiB: idle 303-326 MiB against 336-353 on the embedded database (the same
 * sittings).
 */
export const SERVER_ENV: Record<string, string> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };

/**
 * package.json's `start` script. npm runs a script through `sh -c` and forwards SIGTERM and SIGINT to that
 * shell only; the shell (dash) dies of the signal without passing it on, and npm exits while the server
 * keeps serving, orphaned. `exec` makes the server the shell's own process, so the signal npm forwards
 * reaches it: it drains as on a direct signal, and npm exits when it has (`env` execs node in turn, in the
 * same process).
 */
export const START_SCRIPT = ['exec', 'env', ...Object.entries(SERVER_ENV).map(([k, v]) => `${k}=\${${k}:-${v}}`), 'node', ...SERVER_ARGS].join(' ');
