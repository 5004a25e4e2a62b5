// One fresh start of the api function, taken apart (bench/cold.ts runs it with the function's own flags and
// import map): when its first line ran (epoch ms, for the runtime's own start), the import of the app's module
// graph (and its CPU time), building the app, the first database connection, the import of the posts route group
// (and its CPU time; versions with routes/groups.ts import it with its first request, earlier ones with the app),
// the first and a second GET /post/:id, the first GET /openapi.json (the document) and a second. Prints one JSON
// line of milliseconds.
//   deno run <the stack's flags> --config <function dir>/deno.json cold-probe.ts <function dir> <post id>
import { existsSync } from 'node:fs';
import process from 'node:process';

const boot = performance.now();
const [functionDir, postId] = Deno.args;
const dir = new URL(`file://${functionDir}/`);

/** CPU ms this process has run, all threads (getrusage): the import's cost, which noise moves less. */
function cpu(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const result = await work();
  return [performance.now() - start, result];
}

const cpuBefore = cpu();
// createDeps lives in lib/deps.ts since the connections open before the app loads; app.ts had it before.
const depsModule = existsSync(new URL('lib/deps.ts', dir)) ? 'lib/deps.ts' : 'app.ts';
const [load, [{ createApp }, { createDeps }, { parseEnv }]] = await timed(() =>
  Promise.all([
    import(new URL('app.ts', dir).href),
    import(new URL(depsModule, dir).href),
    import(new URL('env.ts', dir).href),
  ])
);
const loadCpu = cpu() - cpuBefore;
const env = parseEnv(Deno.env.toObject());
const [construct, [app, deps]] = await timed(() => {
  const deps = createDeps(env);
  return Promise.resolve([createApp(env, deps), deps]);
});
/** The route group that serves GET /post/:postId, imported. */
async function postsGroup(groups: string): Promise<unknown> {
  const { routeGroups } = await import(groups);
  return await routeGroups.find((g: { routes: string[] }) => g.routes.includes('GET /post/:postId')).load();
}
const ask = async (path: string) => {
  const response: Response = await app.request(`/api${path}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
};
const [connect] = await timed(() => deps.db.probe`select 1`);
const groups = new URL('routes/groups.ts', dir);
const cpuBeforeGroup = cpu();
const [groupLoad] = existsSync(groups) ? await timed(() => postsGroup(groups.href)) : [0];
const groupCpu = cpu() - cpuBeforeGroup;
const [firstPost] = await timed(() => ask(`/post/${postId}`));
const [secondPost] = await timed(() => ask(`/post/${postId}`));
const [openapi] = await timed(() => ask('/openapi.json'));
const [openapiAgain] = await timed(() => ask('/openapi.json'));
console.log(
  JSON.stringify({
    startedAt: performance.timeOrigin + boot,
    load,
    loadCpu,
    construct,
    connect,
    groupLoad,
    groupCpu,
    firstPost,
    secondPost,
    openapi,
    openapiAgain,
  }),
);
Deno.exit(0);
