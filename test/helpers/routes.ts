// The routes of the facade as the app mounts them, and the zod schemas they declare, looked up by method and path:
// the very schemas the routes validate requests with and document their answers by.
import type { RouteConfig, z } from '@hono/zod-openapi';
import { createApp } from '../../functions/api/app.ts';
import { parseEnv } from '../../functions/api/env.ts';
import { documentedRoutes } from '../../functions/api/routes/groups.ts';

// The app itself, built in-process (no database, no network), and every route group it mounts, imported as its
// OpenAPI document does: a group listed in functions/api/routes/groups.ts is seen here, and by every guard that
// reads these lists, with no list to add it to.
const app = createApp(parseEnv({
  SUPABASE_URL: 'http://127.0.0.1:54321',
  SUPABASE_DB_URL: 'postgresql://unused@127.0.0.1:9/unused',
  SUPABASE_ANON_KEY: 'unused',
  SUPABASE_SERVICE_ROLE_KEY: 'unused',
}));
const documented = await documentedRoutes();

/** Every route the OpenAPI document documents, its path without `/api`, as its router declared it. */
export const routes: RouteConfig[] = documented.openAPIRegistry.definitions.flatMap((definition) =>
  definition.type === 'route' ? [definition.route] : []
);

/**
 * Every path the app serves, documented or not (the Send Email hook, Swagger UI's files), without `/api`, in
 * Hono's form (`/post/:postId`); the middleware's `/*` left out.
 */
export const servedPaths: string[] = [
  ...new Set(app.routes.map((route) => route.path.replace(/^\/api/, '')).filter((path) => path !== '/*')),
];

/** The route of `'GET /{username}'`. */
export function route(name: string): RouteConfig {
  const [method, path] = name.split(' ');
  const found = routes.find((r) => r.method === method.toLowerCase() && r.path === path);
  if (!found) throw new Error(`no route ${name}`);
  return found;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** The fields of the route's JSON body. */
export function bodyFields(name: string): Record<string, z.ZodType> {
  const content = route(name).request?.body?.content?.['application/json'] as { schema?: AnyObject } | undefined;
  if (!content?.schema) throw new Error(`${name} takes no JSON body`);
  return content.schema.shape as Record<string, z.ZodType>;
}

/** The schema of the route's successful (2xx) JSON answer. */
export function successSchema(name: string): z.ZodType {
  const [, response] = Object.entries(route(name).responses).find(([status]) => status.startsWith('2')) ?? [];
  const schema = (response as { content?: Record<string, { schema?: z.ZodType }> } | undefined)?.content
    ?.['application/json']?.schema;
  if (!schema) throw new Error(`${name} declares no JSON success answer`);
  return schema;
}

/** Every parameter called `name` in the OpenAPI document the routes make. */
export function openApiParameters(name: string): { name: string; description?: string }[] {
  const { paths = {} } = documented.getOpenAPI31Document({ openapi: '3.1.0', info: { title: '', version: '' } });
  return Object.values(paths).flatMap((operations) =>
    Object.values(operations as Record<string, { parameters?: { name: string; description?: string }[] }>)
  )
    .flatMap((operation) => operation.parameters ?? []).filter((parameter) => parameter.name === name);
}
