// What a set of triggers costs the write paths: each write endpoint's SQL function under pgbench with the
// triggers disabled, then enabled, in turns (off, on, off, on), each run after a VACUUM of the tables written,
// so that the machine's noise and the tables' state fall on both sides alike. Measured for the triggers that
// notify (the target of issue 12: at most 20 % of the throughput lost) and for those that count writes against
// the write limits (issue 26).
import type postgres from 'postgres';
import type { Endpoint } from './endpoints.ts';
import type { Load } from './load.ts';

type Triggers = ReadonlyArray<readonly [table: string, trigger: string]>;

/** Every trigger that writes or deletes notifications or mentions (supabase/schemas/20_mentions.sql, 21_notifications.sql). */
export const notifyingTriggers: Triggers = [
  ['public.follows', 'notify_follow'],
  ['public.follows', 'notify_follow_accepted'],
  ['public.follows', 'forget_follow_request'],
  ['public.post_likes', 'notify_post_like'],
  ['public.comment_likes', 'notify_comment_like'],
  ['public.comments', 'notify_comment'],
  ['public.comments', 'resolve_comment_mentions'],
  ['public.posts', 'resolve_post_mentions'],
  ['public.posts', 'resolve_edited_post_mentions'],
  ['public.post_mentions', 'notify_post_mention'],
  ['public.comment_mentions', 'notify_comment_mention'],
];

/** Every trigger that counts a write against the write limits (supabase/schemas/24_write_limits.sql). */
export const writeLimitTriggers: Triggers = [
  'posts',
  'comments',
  'post_likes',
  'comment_likes',
  'follows',
  'blocks',
  'close_friends',
  'reports',
  'post_mentions',
  'comment_mentions',
].map((table) => [`public.${table}`, 'count_write'] as const);

export interface TriggerCost {
  name: string;
  clients: number;
  /** Transactions per second of each turn. */
  off: number[];
  on: number[];
}

/** The tables the writes touch. Vacuumed before each run: a hot row updated thousands of times a second leaves
 * dead versions that slow every later run until autovacuum comes, which would favour whichever side ran first. */
const writtenTables =
  'public.posts, public.comments, public.post_likes, public.follows, public.profiles, public.notifications';

async function setTriggers(root: postgres.Sql, triggers: Triggers, enabled: boolean): Promise<void> {
  const verb = enabled ? 'enable' : 'disable';
  for (const [table, trigger] of triggers) await root.unsafe(`alter table ${table} ${verb} trigger ${trigger}`);
}

/** `load(endpoint, clients)` runs pgbench on the endpoint's SQL; the triggers are enabled again whatever happens. */
export async function measureTriggerCost(
  root: postgres.Sql,
  triggers: Triggers,
  writes: Endpoint[],
  clientCounts: number[],
  load: (endpoint: Endpoint, clients: number) => Promise<Load>,
): Promise<TriggerCost[]> {
  const results: TriggerCost[] = [];
  try {
    for (const endpoint of writes) {
      for (const clients of clientCounts) {
        const result: TriggerCost = { name: endpoint.name, clients, off: [], on: [] };
        for (let turn = 0; turn < 2; turn++) {
          for (const enabled of [false, true]) {
            await setTriggers(root, triggers, enabled);
            await root.unsafe(`vacuum ${writtenTables}`);
            (enabled ? result.on : result.off).push((await load(endpoint, clients)).perSecond);
          }
        }
        results.push(result);
      }
    }
  } finally {
    await setTriggers(root, triggers, true);
  }
  return results;
}
