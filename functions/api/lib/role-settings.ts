// The settings each API role has in the database (`alter role anon set statement_timeout = '3s'`, `jit = off`),
// which PostgREST applies per request because `set role` does not: read from pg_db_role_setting and kept a
// minute, as PostgREST keeps them until its schema cache reloads.
import type postgres from 'postgres';
import { arrayLiteral } from './pool.ts';

/** The settings the facade applies per transaction, as set_config(name, value, true). */
const appliedSettings = ['statement_timeout', 'lock_timeout', 'jit'];
const keptMs = 60_000;

export type RoleSettings = (role: string) => Promise<[string, string][]>;

export function createRoleSettings(sql: postgres.Sql): RoleSettings {
  let loaded: { at: number; settings: Promise<Map<string, [string, string][]>> } | undefined;

  async function load(): Promise<Map<string, [string, string][]>> {
    // Settings for every database first, then this database's, which override them.
    const rows = await sql`
      select r.rolname as role, split_part(s.setting, '=', 1) as name, substr(s.setting, strpos(s.setting, '=') + 1) as value
      from pg_db_role_setting d
        join pg_roles r on r.oid = d.setrole
        cross join lateral unnest(d.setconfig) s(setting)
      where d.setdatabase in (0, (select oid from pg_database where datname = current_database()))
        and split_part(s.setting, '=', 1) = any(${arrayLiteral(appliedSettings)}::text[])
      order by d.setdatabase`;
    const byRole = new Map<string, Map<string, string>>();
    for (const { role, name, value } of rows) {
      byRole.set(role, (byRole.get(role) ?? new Map()).set(name, value));
    }
    return new Map([...byRole].map(([role, settings]) => [role, [...settings]]));
  }

  return async (role) => {
    if (!loaded || Date.now() - loaded.at > keptMs) {
      const settings = load();
      loaded = { at: Date.now(), settings };
      // A failed read is tried again by the next request.
      settings.catch(() => (loaded = undefined));
    }
    return (await loaded.settings).get(role) ?? [];
  };
}
