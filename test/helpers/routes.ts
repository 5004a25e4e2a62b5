// The zod schemas the facade's routes declare, looked up by method and path in each router's OpenAPI registry:
// the very schemas the routes validate requests with and document their answers by.
import type { RouteConfig, z } from '@hono/zod-openapi';
import { account } from '../../functions/api/routes/account.ts';
import { accountUndo } from '../../functions/api/routes/account-undo.ts';
import { admin } from '../../functions/api/routes/admin.ts';
import { auth } from '../../functions/api/routes/auth.ts';
import { comments } from '../../functions/api/routes/comments.ts';
import { accountExport } from '../../functions/api/routes/export.ts';
import { feed } from '../../functions/api/routes/feed.ts';
import { health } from '../../functions/api/routes/health.ts';
import { mfa } from '../../functions/api/routes/mfa.ts';
import { notifications } from '../../functions/api/routes/notifications.ts';
import { posts } from '../../functions/api/routes/posts.ts';
import { search } from '../../functions/api/routes/search.ts';
import { sessions } from '../../functions/api/routes/sessions.ts';
import { users } from '../../functions/api/routes/users.ts';

const routers = [
  account,
  accountUndo,
  accountExport,
  admin,
  auth,
  comments,
  feed,
  health,
  mfa,
  notifications,
  posts,
  search,
  sessions,
  users,
];

export const routes: RouteConfig[] = routers.flatMap((router) =>
  router.openAPIRegistry.definitions.flatMap((definition) => (definition.type === 'route' ? [definition.route] : []))
);

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
  return routers.flatMap((router) => {
    const { paths = {} } = router.getOpenAPI31Document({ openapi: '3.1.0', info: { title: '', version: '' } });
    return Object.values(paths).flatMap((operations) =>
      Object.values(operations as Record<string, { parameters?: { name: string; description?: string }[] }>)
    )
      .flatMap((operation) => operation.parameters ?? []).filter((parameter) => parameter.name === name);
  });
}
