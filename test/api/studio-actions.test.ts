// Issue 53: every action of the catalogue (test/helpers/studio-actions.ts), run as Studio sends it on a scene of its
// own (test/helpers/studio-scene.ts). A refused action must answer its code and change nothing the facade and
// supabase-js read; a kept or corrected one must answer, and its own check says what they read after it. Nothing
// moderation.integrity_report() sees may be left broken around the scene.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import type { StudioAction } from '../helpers/studio-action-kinds.ts';
import { catalogue, catalogueMarkdown, productTriggers } from '../helpers/studio-actions.ts';
import { arrangeScene, brokenAround, view } from '../helpers/studio-scene.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** What an action answered: a refusal's code (an Auth answer's error_code, a SQL error's hint or SQLSTATE), or its result. */
async function outcomeOf(sent: Promise<unknown>): Promise<{ refusal?: string; result?: unknown }> {
  try {
    const result = await sent;
    const answer = result as { status?: number; body?: { error_code?: string; code?: string } };
    if (typeof answer?.status === 'number' && answer.status >= 400) {
      return { refusal: answer.body?.error_code ?? String(answer.body?.code ?? answer.status) };
    }
    return { result };
  } catch (error) {
    // The product's refusals carry their code in the hint; Postgres's own, in the SQLSTATE.
    const { code, hint } = error as { code: string; hint?: string };
    return { refusal: code.startsWith('PT') ? hint : code };
  }
}

async function run(action: StudioAction): Promise<void> {
  const { expected } = action;
  if (action.withoutScene) {
    const { refusal, result } = await outcomeOf(action.send(undefined as never));
    expect(refusal).toBe(expected.outcome === 'refused' ? expected.code : undefined);
    await action.then?.(undefined as never, undefined as never, undefined as never, result);
    return;
  }
  const scene = await arrangeScene();
  await action.prepare?.(scene);
  const before = await view(scene);
  const { refusal, result } = await outcomeOf(action.send(scene));
  expect(refusal).toBe(expected.outcome === 'refused' ? expected.code : undefined);
  const after = await view(scene);
  if (expected.outcome === 'refused') expect(after).toEqual(before);
  await action.then?.(scene, before, after, result);
  expect(await brokenAround(scene)).toEqual([]);
}

describe.skipIf(!authIsRunning)('every action an admin can take in Studio', () => {
  for (const action of catalogue) {
    it(`${action.name} (${action.expected.outcome})`, () => run(action), 30_000);
  }
});

describe('the catalogue', () => {
  it('names each action once, with its door, its source and its expected outcome', () => {
    const names = catalogue.map((action) => action.name);
    expect(new Set(names).size).toBe(names.length);
    const byDoor = Object.fromEntries(
      ['auth-admin', 'table-editor', 'csv-import', 'triggers', 'sql-editor-impersonation'].map((door) => [
        door,
        catalogue.filter((action) => action.door === door).length,
      ]),
    );
    expect(byDoor).toEqual(catalogueCounts);
    expect(catalogue.length).toBe(Object.values(catalogueCounts).reduce((a, b) => a + b));
    for (const action of catalogue) expect(action.mirrors).toMatch(/^supabase\/(supabase|postgres-meta) \S+/);
  });

  it.skipIf(!authIsRunning)("switches every trigger of the product: the list is the database's", async () => {
    const rows = await asRoot`
      select c.relnamespace::regnamespace::text || '.' || c.relname as "table", t.tgname as trigger
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
      where not t.tgisinternal and p.pronamespace = 'private'::regnamespace`;
    const listed = Object.entries(productTriggers).flatMap(([table, triggers]) => triggers.map((t) => `${table}.${t}`));
    expect(rows.map((row) => `${row.table}.${row.trigger}`).sort()).toEqual(listed.sort());
  });

  it("is docs/DATABASE.md's list of Studio actions", () => {
    const doc = readFileSync('docs/DATABASE.md', 'utf8');
    const marker = '<!-- the catalogue of test/helpers/studio-actions.ts; its test checks this list -->\n';
    const start = doc.indexOf(marker);
    expect(start).toBeGreaterThan(0);
    const listed = doc.slice(start + marker.length).split('\n\n')[0] + '\n\n' +
      doc.slice(start + marker.length).split('\n\n')[1];
    expect(listed).toBe(catalogueMarkdown());
  });
});

/** How many actions each door has: a new action changes this on purpose. */
const catalogueCounts = {
  'auth-admin': 19,
  'table-editor': 148,
  'csv-import': 7,
  triggers: 266,
  'sql-editor-impersonation': 11,
};
