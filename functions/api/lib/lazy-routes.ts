// Route groups whose module (its zod schemas and handlers) is imported with the group's first request: the app
// registers every path at start, so routing, 404, 405 and CORS answer as before, and a cold start loads only
// the groups it is asked for (docs/PERFORMANCE.md, "Cold start").
import type { Context, Handler, Hono, Next } from 'hono';
import type { AppEnv } from './context.ts';

/** A group's router: lib/router.ts's createRouter() with its routes, whatever their types. */
// deno-lint-ignore no-explicit-any
export type Router = Hono<AppEnv, any, any>;

export interface RouteGroup {
  /** Each route its router serves, as `METHOD /path` in Hono's form (`GET /post/:postId`). */
  routes: string[];
  /** Imports the group's module: its router. */
  load: () => Promise<Router>;
}

/** Runs `handlers` in turn, as Hono runs the handlers of one route (its middleware, validators, then handler). */
async function runInTurn(handlers: Handler<AppEnv>[], c: Context<AppEnv>, next: Next): Promise<void> {
  const dispatch = async (index: number): Promise<void> => {
    const handler = handlers[index];
    if (!handler) return await next();
    const response = await handler(c, () => dispatch(index + 1));
    if (response instanceof Response && !c.finalized) c.res = response;
  };
  await dispatch(0);
}

/** Registers each route of `group` on `app`; the group's module is imported when one of them is first asked. */
export function mountLazily(app: Hono<AppEnv>, group: RouteGroup): void {
  let router: Promise<Router> | undefined;
  for (const route of group.routes) {
    const [method, path] = route.split(' ');
    let handlers: Handler<AppEnv>[] | undefined;
    app.on(method, path, async (c, next) => {
      router ??= group.load();
      handlers ??= (await router).routes.filter((r) => r.method === method && r.path === path).map((r) => r.handler);
      if (handlers.length === 0) throw new Error(`the router listed for ${route} does not serve it`);
      await runInTurn(handlers, c, next);
    });
  }
}
