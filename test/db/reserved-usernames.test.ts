// A username never shadows a path: every fixed first segment of a path the app serves is reserved, so /feed,
// /search or /notifications can never be someone's profile. The paths are the app's own (test/helpers/routes.ts
// builds it): a router mounted in functions/api/app.ts is checked here without being listed anywhere else.
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { servedPaths } from '../helpers/routes.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** The fixed first segments of `paths` (Hono's form: `/post/:postId`) that `reserved` lacks, each with the fix. */
function unreservedSegments(paths: string[], reserved: Set<string>): string[] {
  const segments = new Set(paths.map((path) => path.split('/')[1]).filter((s) => s && !/^[:*{]/.test(s)));
  return [...segments].filter((segment) => !reserved.has(segment)).map((segment) =>
    `/${segment} is served but "${segment}" is not a reserved username: add ` +
    `insert into private.reserved_usernames (name) values ('${segment}') on conflict do nothing; ` +
    "to the feature's schema file in supabase/schemas/ and to its migration (docs/CHANGING.md, adding an endpoint)"
  );
}

describe('reserved usernames', () => {
  it('name what to add for a path segment nobody reserved', () => {
    expect(unreservedSegments(['/feed', '/bookmarks', '/bookmarks/:id', '/:username', '/*'], new Set(['feed'])))
      .toEqual([expect.stringMatching(/^\/bookmarks is served .*values \('bookmarks'\).*supabase\/schemas\//)]);
  });

  // The app's schema is applied on top of Auth's, so without Auth there is no table to read.
  it.skipIf(!authIsRunning)('hold every fixed first path segment the app serves', async () => {
    const reserved = new Set((await asRoot`select name from private.reserved_usernames`).map((row) => row.name));
    expect(servedPaths).toEqual(expect.arrayContaining(['/feed', '/search', '/notifications', '/hooks/send_email']));
    expect(unreservedSegments(servedPaths, reserved)).toEqual([]);
  });
});
