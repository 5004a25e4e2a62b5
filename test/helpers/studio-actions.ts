// Every action an admin can take on the product in Supabase Studio, one entry each (issue 53): the Authentication
// page's buttons, the table editor's and the CSV import's edits of every table an admin opens, Database > Triggers'
// switch of every product trigger, and the SQL editor's impersonation. test/api/studio-actions.test.ts runs each as
// Studio sends it and checks the rule through the facade and supabase-js; docs/DATABASE.md lists them
// (catalogueMarkdown, checked by the same test).
import { expect } from 'vitest';
import { asRoot } from './db.ts';
import { refused, sources, type StudioAction } from './studio-action-kinds.ts';
import { authActions, impersonationActions } from './studio-buttons.ts';
import { editorActions } from './studio-edits.ts';
import { triggerSwitch } from './studio.ts';

/** The product's triggers (their functions in `private`), by table; the test checks the list against the database. */
export const productTriggers: Record<string, string[]> = {
  'auth.mfa_factors': ['make_room_for_factors'],
  'auth.sessions': [
    'announce_session_end',
    'check_code_session_password',
    'end_stale_code_exemption',
    'limit_code_sessions',
  ],
  'auth.users': [
    'announce_session_end',
    'create_profile',
    'give_unknowable_password',
    'keep_auth_ban_in_step',
    'keep_banned_email',
    'keep_email_identity_in_line',
    'keep_email_unique',
    'note_password_change',
    'note_recovery_verified',
    'record_auth_ban',
    'refuse_banned_email_change',
    'remove_stale_sign_ups',
    'reset_code_attempts',
    'sync_profile_confirmation',
  ],
  'private.pending_counts': ['refuse_counter_edit'],
  'private.reserved_usernames': ['check_reserved_username'],
  'private.trusted_writers': ['refuse_unrecorded_limit_change', 'refuse_unrecorded_limit_change_whole'],
  'private.write_counts': ['refuse_unrecorded_limit_change'],
  'private.write_limit_history': [
    'keep_write_limit_history',
    'keep_write_limit_history_whole',
    'refuse_unrecorded_limit_change',
  ],
  'public.ban_history': ['keep_ban_history', 'keep_ban_history_whole', 'refuse_forged_history'],
  'public.blocks': [
    'announce_block',
    'apply_block',
    'count_write',
    'end_mutes_on_block',
    'keep_created_at',
    'refuse_row_move',
    'refuse_self_pair',
    'values_required',
  ],
  'public.close_friends': [
    'check_close_friend_insert',
    'count_write',
    'keep_created_at',
    'refuse_row_move',
    'refuse_self_pair',
    'values_required',
  ],
  'public.comment_likes': [
    'count_comment_like',
    'count_write',
    'keep_created_at',
    'notify_comment_like',
    'refuse_counted_truncate',
    'refuse_row_move',
    'refuse_unseen_target',
    'skip_duplicate_like',
    'values_required',
  ],
  'public.comment_mentions': ['count_write', 'notify_comment_mention', 'refuse_derived_edit', 'refuse_derived_insert'],
  'public.comments': [
    'check_reply_parent',
    'count_comment',
    'count_write',
    'keep_created_at',
    'notify_comment',
    'refuse_comment_edit',
    'refuse_counted_truncate',
    'refuse_counter_edit',
    'refuse_hidden_parent',
    'refuse_row_move',
    'refuse_unseen_target',
    'resolve_comment_mentions',
    'stamp_comment',
    'values_required',
  ],
  'public.follows': [
    'check_follow_update',
    'count_follow',
    'count_write',
    'decide_follow_status',
    'forget_follow_request',
    'notify_follow',
    'notify_follow_accepted',
    'refuse_counted_truncate',
    'refuse_row_move',
    'refuse_self_pair',
    'sync_feed_source',
    'values_required',
  ],
  'public.mutes': ['keep_created_at', 'refuse_row_move', 'refuse_self_pair', 'values_required'],
  'public.notifications': ['refuse_derived_edit', 'refuse_derived_insert'],
  'public.post_likes': [
    'count_post_like',
    'count_write',
    'keep_created_at',
    'notify_post_like',
    'refuse_counted_truncate',
    'refuse_row_move',
    'refuse_unseen_target',
    'skip_duplicate_like',
    'uncount_post_likes',
    'values_required',
  ],
  'public.post_mentions': ['count_write', 'notify_post_mention', 'refuse_derived_edit', 'refuse_derived_insert'],
  'public.posts': [
    'count_edit',
    'count_post',
    'count_write',
    'raise_feed_sources',
    'refuse_banned_post_edit',
    'refuse_counted_truncate',
    'refuse_counter_edit',
    'refuse_unrecorded_ban',
    'resolve_edited_post_mentions',
    'resolve_post_mentions',
    'stamp_post',
    'values_required',
  ],
  'public.profiles': [
    'accept_requests_when_public',
    'count_edit',
    'count_username_change',
    'delete_account_of_profile',
    'keep_created_at',
    'normalize_profile',
    'refuse_confirmation_edit',
    'refuse_counter_edit',
    'refuse_unrecorded_ban',
    'start_profile_counters',
  ],
  'public.reports': [
    'count_write',
    'keep_created_at',
    'refuse_counted_truncate',
    'refuse_report_without_target',
    'refuse_row_move',
    'refuse_self_pair',
    'summarize_reports',
    'values_required',
  ],
};

/** pg-meta's modes that switch a trigger off for the product's sessions (PostgresMetaTriggers.update). */
const offModes = ['DISABLED', 'REPLICA'] as const;

const triggerActions: StudioAction[] = Object.entries(productTriggers).flatMap(([table, triggers]) =>
  triggers.flatMap((trigger) =>
    offModes.map((mode): StudioAction => ({
      name: `triggers: ${mode === 'DISABLED' ? 'disable' : 'enable replica'} ${table}.${trigger}`,
      door: 'triggers',
      mirrors: sources.triggerSwitch,
      expected: refused('trigger_switch_refused'),
      withoutScene: true,
      send: () => triggerSwitch(table, trigger, mode),
      then: async () => {
        const [row] =
          await asRoot`select tgenabled from pg_trigger where tgname = ${trigger} and tgrelid = ${table}::regclass`;
        expect(row.tgenabled).toBe('O');
      },
    }))
  )
);

export const catalogue: StudioAction[] = [
  ...authActions,
  ...editorActions,
  ...triggerActions,
  ...impersonationActions,
];

const doorNames: Record<StudioAction['door'], string> = {
  'auth-admin': 'Authentication page (Auth admin API, service key)',
  'table-editor': 'table editor (pg-meta SQL as `postgres`)',
  'csv-import': 'CSV import (one batch insert as `postgres`)',
  triggers: 'Database > Triggers (pg-meta `alter table … trigger`)',
  'sql-editor-impersonation': "SQL editor's role impersonation",
};

function outcomeText(action: StudioAction): string {
  const { expected } = action;
  if (expected.outcome === 'refused') return `refused (\`${expected.code}\`)`;
  return expected.outcome === 'kept' ? 'kept' : `corrected: ${expected.how}`;
}

/** The catalogue as docs/DATABASE.md lists it: counts by door, then one row per action (a table's trigger switches in one). */
export function catalogueMarkdown(): string {
  const lines = [
    `${catalogue.length} actions: ${
      Object.entries(doorNames).map(([door, name]) =>
        `${catalogue.filter((action) => action.door === door).length} on the ${name}`
      ).join(', ')
    }.`,
    '',
    '| action | result |',
    '|---|---|',
  ];
  for (const action of catalogue.filter((action) => action.door !== 'triggers')) {
    lines.push(`| ${action.name} | ${outcomeText(action)} |`);
  }
  for (const [table, triggers] of Object.entries(productTriggers)) {
    lines.push(
      `| triggers: disable or enable replica, on \`${table}\`, each of ${
        triggers.map((t) => `\`${t}\``).join(', ')
      } | refused (\`trigger_switch_refused\`) |`,
    );
  }
  return lines.join('\n');
}
