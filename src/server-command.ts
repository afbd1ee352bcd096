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
 * servers run with it (the process tests, which measure no memory, without). glibc reads them when the
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
 *
 * MALLOC_MMAP_THRESHOLD_=32768: a block of 32 KiB or more is mapped on its own and unmapped when freed,
 * where glibc would carve it from an arena and keep the hole. V8's compilers and parser allocate their
 * zones in segments of up to 32 KiB; the start's compiles freed many of them between blocks still in
 * use, and the arenas kept those holes resident: idle 10 s after start on the embedded database 220-224 MiB
 * against 264-275 without (a copy of the bench's database, starts alternating), 225 against 287 in the
 * bench's footprint, a minute after its load 203 against 266. Start to healthy took 0.2 s more (a mapping
 * and an unmapping a segment: 1.06 against 0.86 s); requests were as fast (`GET /agents/me` 31.3k against
 * 30.7k a second, resolve, execute and the uncached reads within their runs' spread, the same sitting).
 * At 64 KiB the segments stay in the arenas and nothing was saved (docs/operations.md, Footprint).
 */
export const SERVER_ENV: Record<string, string> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '32768' };

/**
 * package.json's `start` script. npm runs a script through `sh -c` and forwards SIGTERM and SIGINT to that
 * shell only; the shell (dash) dies of the signal without passing it on, and npm exits while the server
 * keeps serving, orphaned. `exec` makes the server the shell's own process, so the signal npm forwards
 * reaches it: it drains as on a direct signal, and npm exits when it has (`env` execs node in turn, in the
 * same process).
 */
export const START_SCRIPT = ['exec', 'env', ...Object.entries(SERVER_ENV).map(([k, v]) => `${k}=\${${k}:-${v}}`), 'node', ...SERVER_ARGS].join(' ');
