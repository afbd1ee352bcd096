// How the server's process is started. `npm start` (package.json, kept equal by a test), the process tests
// and the bench all run this command, so what is measured and tested is what operators run.

/**
 * Node's options for the server. Young-generation semi-spaces of 64 MiB instead of 16: a request allocates
 * a few dozen kilobytes that die young, and a larger nursery scavenges less often and promotes less; on
 * `GET /agents/me` under load that is about 15% more requests a second for the same CPU (docs/benchmarks.md).
 * The space is committed only as it is used.
 */
export const SERVER_NODE_OPTIONS = ['--max-semi-space-size=64'];

/** The arguments of `node` that run the server from the repository root. */
export const SERVER_ARGS = [...SERVER_NODE_OPTIONS, '--import', 'tsx', 'src/server.ts'];
