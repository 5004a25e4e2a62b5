// What notifying costs the write paths: each write endpoint's SQL function under pgbench with the triggers
// that write notifications and mentions disabled, then enabled, in turns (off, on, off, on), each run after
// a VACUUM of the tables written, so that the machine's noise and the tables' state fall on both sides alike. The target (issue 12): at most 20 % of the throughput lost.
import type postgres from 'postgres';
import type { Endpoint } from './endpoints.ts';
import type { Load } from './load.ts';

/** Every trigger that writes or deletes notifications or mentions (supabase/schemas/20_mentions.sql, 21_notifications.sql). */
const notifyingTriggers = [
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
] as const;

export interface NotificationCost {
  name: string;
  clients: number;
  /** Transactions per second of each turn. */
  off: number[];
  on: number[];
}

/** The tables the writes touch. Vacuumed before each run: a hot row updated thousands of times a second leaves
 * dead versions that slow every later run until autovacuum comes, which would favour whichever side ran first. */
const writtenTables = 'public.posts, public.comments, public.post_likes, public.follows, public.profiles, public.notifications';

async function setTriggers(root: postgres.Sql, enabled: boolean): Promise<void> {
  const verb = enabled ? 'enable' : 'disable';
  for (const [table, trigger] of notifyingTriggers) await root.unsafe(`alter table ${table} ${verb} trigger ${trigger}`);
}

/** `load(endpoint, clients)` runs pgbench on the endpoint's SQL; the triggers are enabled again whatever happens. */
export async function measureNotificationCost(
  root: postgres.Sql,
  writes: Endpoint[],
  clientCounts: number[],
  load: (endpoint: Endpoint, clients: number) => Promise<Load>,
): Promise<NotificationCost[]> {
  const results: NotificationCost[] = [];
  try {
    for (const endpoint of writes) {
      for (const clients of clientCounts) {
        const result: NotificationCost = { name: endpoint.name, clients, off: [], on: [] };
        for (let turn = 0; turn < 2; turn++) {
          for (const enabled of [false, true]) {
            await setTriggers(root, enabled);
            await root.unsafe(`vacuum ${writtenTables}`);
            (enabled ? result.on : result.off).push((await load(endpoint, clients)).perSecond);
          }
        }
        results.push(result);
      }
    }
  } finally {
    await setTriggers(root, true);
  }
  return results;
}
