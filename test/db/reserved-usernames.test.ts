// A username never shadows a path: every fixed first segment of a route is reserved, so /feed, /search or
// /notifications can never be someone's profile.
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { routes } from '../helpers/routes.ts';
import { authIsRunning } from '../helpers/stack.ts';

// The app's schema is applied on top of Auth's, so without Auth there is no table to read.
describe.skipIf(!authIsRunning)('reserved usernames', () => {
  it('hold every fixed first path segment of the API', async () => {
    const segments = [
      ...new Set(routes.map((route) => route.path.split('/')[1]).filter((segment) => !segment.startsWith('{'))),
    ];
    const reserved = new Set((await asRoot`select name from private.reserved_usernames`).map((row) => row.name));
    expect(segments).toEqual(expect.arrayContaining(['feed', 'search', 'notifications']));
    expect(segments.filter((segment) => !reserved.has(segment))).toEqual([]);
  });
});
