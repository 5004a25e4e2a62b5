// Each route group's list in functions/api/routes/groups.ts (what the app registers at start, before the group's
// module loads) is exactly what its router serves: a route missing from the list would answer 404 until another
// route of its group had loaded the module, and one listed but not served would answer 500.
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/api/routes/groups.ts';

describe('the route groups', () => {
  it('list each route their router serves, and no other', async () => {
    for (const group of routeGroups) {
      const router = await group.load();
      const served = [...new Set(router.routes.map((route) => `${route.method} ${route.path}`))];
      expect(group.routes, `routes/groups.ts, the group of ${served[0]}`).toEqual(served);
    }
  });
});
