-- Write limits: how much one account may write in a window of time, per family of writes (docs/PRODUCT.md,
-- "Write limits"). Enforced by triggers on the tables, so the facade, supabase-js clients and any function
-- meet the same limits. The numbers live in private.write_limits, one row per family: an operator changes one
-- with an UPDATE in Studio, no migration.
--
-- Counting: one row per account, family and window (fixed windows on a grid from 2000-01-01, so every
-- account's window of a family starts at the same time). A write adds to its row with an upsert, which takes
-- the row's lock until the transaction ends: parallel writers of one account queue on it and cannot pass the
-- limit together. A refused write raises, which rolls the count back with the write; so does any write that
-- fails later. Only a signed-in caller writing as themselves is counted (auth.uid() = the row's writer): Studio,
-- migrations and the service_role key act for the operator. Admins and trusted accounts are not limited.

create table private.write_limits (
  family text primary key check (family ~ '^[a-z_]{1,30}$'),
  max_writes integer not null check (max_writes > 0),
  max_writes_new_account integer not null check (max_writes_new_account > 0),
  window_length interval not null check (window_length between interval '1 minute' and interval '7 days'),
  why text not null default '',
  check (max_writes_new_account <= max_writes)
);
alter table private.write_limits enable row level security;
comment on table private.write_limits is
  'How many writes of a family one account may make per window; accounts younger than a day get max_writes_new_account. Edit to change a limit.';
comment on column private.write_limits.family is
  'posts, comments, likes, follows, blocks, close_friends, reports, mentions, post_edits, profile_edits or username_changes.';
comment on column private.write_limits.max_writes is 'The most writes an account may make in one window.';
comment on column private.write_limits.max_writes_new_account is 'The same for an account younger than a day.';
comment on column private.write_limits.window_length is 'The window''s length; windows start on a fixed grid.';
comment on column private.write_limits.why is 'Why this number: for the next operator.';

insert into private.write_limits (family, max_writes, max_writes_new_account, window_length, why) values
  ('posts', 100, 20, '3 hours', 'A daily journal: a few posts a day. Mastodon allows 300 per 3 hours.'),
  ('comments', 300, 60, '3 hours', 'Comments and replies: a lively thread, not a flood (Mastodon counts them as posts: 300 per 3 hours).'),
  ('likes', 1000, 200, '3 hours', 'Likes are cheap and many: a reader catching up on a feed, not a like farm.'),
  ('follows', 400, 100, '24 hours', 'Follows and follow requests: Mastodon allows 400 per 24 hours.'),
  ('blocks', 200, 50, '24 hours', 'Blocking a wave of harassers, not the whole network.'),
  ('close_friends', 400, 100, '24 hours', 'Additions to and removals from the close-friends list.'),
  ('reports', 100, 20, '24 hours', 'Report floods bury real reports: Mastodon allows 400 per 24 hours.'),
  ('mentions', 100, 30, '3 hours', 'Accounts named in posts and comments (a text keeps at most 20): each mention notifies someone, so mentioning everyone is spam.'),
  ('post_edits', 200, 40, '3 hours', 'Edits of posts (body, media, emotion, privacy): fixing typos and changing who sees a post, about twice the posts allowed; not a script rewriting posts many times a second.'),
  ('profile_edits', 100, 30, '24 hours', 'Edits of the profile (username, display name, bio, avatar, time zone, privacy): setting a profile up and changing it now and then, not a loop.'),
  ('username_changes', 5, 3, '7 days', 'A username is how others find and mention an account: changing it often frees names for squatters and breaks links and mentions.');

-- Accounts an admin trusts not to abuse writes (a brand, a bot the operator runs): no limit applies.
create table private.trusted_writers (
  user_id uuid primary key references auth.users (id) on delete cascade,
  trusted_at timestamptz not null default now()
);
alter table private.trusted_writers enable row level security;
comment on table private.trusted_writers is 'Accounts exempt from the write limits. Changed with moderation.trust_writer (recorded).';
comment on column private.trusted_writers.user_id is 'The trusted account.';
comment on column private.trusted_writers.trusted_at is 'Since when.';

create table private.write_counts (
  user_id uuid not null references auth.users (id) on delete cascade,
  family text not null,
  window_start timestamptz not null,
  writes integer not null check (writes > 0),
  primary key (user_id, family, window_start)
);
alter table private.write_counts enable row level security;
create index write_counts_window_idx on private.write_counts (window_start desc);
comment on table private.write_counts is 'Writes per account, family and window (kept a week: moderation.write_limit_hits reads them).';
comment on column private.write_counts.user_id is 'The writer.';
comment on column private.write_counts.family is 'The family of writes (private.write_limits).';
comment on column private.write_counts.window_start is 'When the window began (windows lie on a grid from 2000-01-01 UTC).';
comment on column private.write_counts.writes is 'Writes counted in the window (never past the limit: a refused write rolls back).';

-- Every exemption and lifted limit, with who and why, as the ban history records bans.
create table private.write_limit_history (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null,
  action text not null check (action in ('trust', 'distrust', 'lift')),
  family text,
  reason text not null check (char_length(btrim(reason)) between 1 and 1000),
  admin_id uuid references auth.users (id) on delete set null,
  database_role text,
  created_at timestamptz not null default now()
);
alter table private.write_limit_history enable row level security;
create index write_limit_history_user_idx on private.write_limit_history (user_id, created_at desc);
create index write_limit_history_admin_idx on private.write_limit_history (admin_id);
comment on table private.write_limit_history is 'Every trust, distrust and lifted write limit: who, when, why. Never changed.';
comment on column private.write_limit_history.id is 'The entry''s id.';
comment on column private.write_limit_history.user_id is 'The account acted on (kept after it is deleted).';
comment on column private.write_limit_history.action is 'trust, distrust or lift.';
comment on column private.write_limit_history.family is 'The family whose count was cleared (lift only).';
comment on column private.write_limit_history.reason is 'Why.';
comment on column private.write_limit_history.admin_id is 'The admin who acted through the API, if any.';
comment on column private.write_limit_history.database_role is 'The database role of a Studio session that acted.';
comment on column private.write_limit_history.created_at is 'When.';

-- A record, as the ban history is (private.keep_record, 06_moderation.sql).
create trigger keep_write_limit_history
before update or delete on private.write_limit_history
for each row execute function private.keep_record();

create trigger keep_write_limit_history_whole
before truncate on private.write_limit_history
for each statement execute function private.keep_record();

revoke all on private.write_limits, private.trusted_writers, private.write_counts, private.write_limit_history
  from anon, authenticated;

-- When the window of this length that holds now began: windows lie on one grid from 2000-01-01 UTC, so every
-- account's window of a family starts at the same time.
create function private.write_window_start(p_length interval)
returns timestamptz
language sql
stable
set search_path = ''
as $$
  select date_bin(p_length, now(), timestamptz '2000-01-01 00:00:00+00')
$$;
revoke execute on function private.write_window_start(interval) from public;
comment on function private.write_window_start(interval) is 'The start of the current write limit window of this length.';

-- "3 hours", "1 day", "42 minutes": a window or a wait, as a person reads it.
create function private.describe_interval(p_length interval)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
    when s >= 86400 and s % 86400 = 0 then (s / 86400)::text || case when s = 86400 then ' day' else ' days' end
    when s >= 3600 and s % 3600 = 0 then (s / 3600)::text || case when s = 3600 then ' hour' else ' hours' end
    when s >= 60 then ceil(s / 60.0)::text || case when s <= 60 then ' minute' else ' minutes' end
    else s::text || case when s = 1 then ' second' else ' seconds' end
  end
  from (select ceil(extract(epoch from p_length))::bigint as s) x
$$;
revoke execute on function private.describe_interval(interval) from public;
comment on function private.describe_interval(interval) is 'An interval as "3 hours", "1 day" or "42 minutes".';

-- Counts `p_count` writes of `p_family` by `p_writer`, or refuses them: 429 too_many_<family>, with the limit
-- and the seconds until the window ends (private.fail with the quota: the facade and PostgREST send them as
-- Retry-After and RateLimit-* headers, and `details` holds them as JSON). What is left is put in the
-- transaction's setting daykeeper.write_quota for the facade's RateLimit-* headers on the answer.
create function private.take_write_quota(p_family text, p_writer uuid, p_count integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_limit private.write_limits;
  v_max integer;
  v_start timestamptz;
  v_writes integer;
  v_reset integer;
  v_quota jsonb;
  v_code text := 'too_many_' || p_family;
begin
  if p_count < 1 or p_writer is distinct from auth.uid() or private.is_admin()
     or exists (select 1 from private.trusted_writers t where t.user_id = p_writer) then
    return;
  end if;
  select * into v_limit from private.write_limits l where l.family = p_family;
  if not found then
    return; -- an operator removed the family's limit
  end if;
  v_max := case when exists (select 1 from public.profiles p where p.id = p_writer and p.created_at > now() - interval '1 day')
    then v_limit.max_writes_new_account else v_limit.max_writes end;
  v_start := private.write_window_start(v_limit.window_length);
  insert into private.write_counts as w (user_id, family, window_start, writes)
  values (p_writer, p_family, v_start, p_count)
  on conflict (user_id, family, window_start) do update set writes = w.writes + excluded.writes
  returning w.writes into v_writes;
  v_reset := greatest(1, ceil(extract(epoch from v_start + v_limit.window_length - now()))::integer);
  v_quota := jsonb_build_object('limit', v_max, 'remaining', greatest(0, v_max - v_writes), 'reset', v_reset);
  if v_writes > v_max then
    perform private.fail(429, v_code, format('You have reached the limit of %s %s in %s; try again in %s', v_max,
      replace(p_family, '_', ' '), private.describe_interval(v_limit.window_length),
      private.describe_interval(make_interval(secs => v_reset))), v_quota);
  end if;
  if v_writes = p_count then
    -- The first write of a new window: counts older than a week go (the hits view reads a week back).
    delete from private.write_counts w
    where w.user_id = p_writer and w.family = p_family and w.window_start < now() - interval '7 days';
  end if;
  -- The first family a request writes is the one its answer reports (a post's, not its mentions').
  if coalesce(current_setting('daykeeper.write_quota', true), '') = '' then
    perform set_config('daykeeper.write_quota', v_quota::text, true);
  end if;
end;
$$;
revoke execute on function private.take_write_quota(text, uuid, integer) from public;
comment on function private.take_write_quota(text, uuid, integer) is
  'Counts writes of a family by the caller, or raises 429 too_many_<family> past the limit (trigger helper).';

-- The trigger: TG_ARGV[0] is the family, TG_ARGV[1] the column naming the writer (for a mention: the
-- writer of the post or comment).
create function private.count_write()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row jsonb := to_jsonb(case when tg_op = 'DELETE' then old else new end);
  v_writer uuid;
begin
  v_writer := case tg_argv[1]
    when 'post_id' then (select p.author_id from public.posts p where p.id = (v_row ->> 'post_id')::uuid)
    when 'comment_id' then (select c.author_id from public.comments c where c.id = (v_row ->> 'comment_id')::uuid)
    else (v_row ->> tg_argv[1])::uuid
  end;
  perform private.take_write_quota(tg_argv[0], v_writer, 1);
  return null;
end;
$$;
revoke execute on function private.count_write() from public;
comment on function private.count_write() is 'Trigger: counts a write against the writer''s limit (private.write_limits).';

create trigger count_write after insert on public.posts
for each row execute function private.count_write('posts', 'author_id');
create trigger count_write after insert on public.comments
for each row execute function private.count_write('comments', 'author_id');
create trigger count_write after insert on public.post_likes
for each row execute function private.count_write('likes', 'user_id');
create trigger count_write after insert on public.comment_likes
for each row execute function private.count_write('likes', 'user_id');
create trigger count_write after insert on public.follows
for each row execute function private.count_write('follows', 'follower_id');
create trigger count_write after insert on public.blocks
for each row execute function private.count_write('blocks', 'blocker_id');
create trigger count_write after insert or delete on public.close_friends
for each row execute function private.count_write('close_friends', 'owner_id');
create trigger count_write after insert on public.reports
for each row execute function private.count_write('reports', 'reporter_id');
create trigger count_write after insert on public.post_mentions
for each row execute function private.count_write('mentions', 'post_id');
create trigger count_write after insert on public.comment_mentions
for each row execute function private.count_write('mentions', 'comment_id');
-- Edits: every update of a column its owner may change counts, whether or not it changed anything (a write is a
-- write); the counters' updates touch none of these columns. A username change is also a profile edit.
create trigger count_edit after update of body, media, emotion, privacy on public.posts
for each row execute function private.count_write('post_edits', 'author_id');
create trigger count_edit after update of username, display_name, bio, avatar_url, time_zone, is_private on public.profiles
for each row execute function private.count_write('profile_edits', 'id');
create trigger count_username_change after update of username on public.profiles
for each row when (old.username is distinct from new.username)
execute function private.count_write('username_changes', 'id');

-- Studio: who reached a limit, who is trusted, and the moves -------------------------------------------

create view moderation.write_limit_hits as
select '@' || p.username as account, w.user_id, w.family, w.writes, w.window_start, w.window_start + l.window_length as window_end,
  p.created_at > w.window_start - interval '1 day' as new_account
from private.write_counts w
  join private.write_limits l on l.family = w.family
  join public.profiles p on p.id = w.user_id
where w.window_start > now() - interval '7 days'
  and w.writes >= case when p.created_at > w.window_start - interval '1 day' then l.max_writes_new_account else l.max_writes end
order by w.window_start desc, w.writes desc;
comment on view moderation.write_limit_hits is
  'Accounts that reached a write limit in the last week (every further write in that window was refused): a spam signal.';
comment on column moderation.write_limit_hits.account is 'Who.';
comment on column moderation.write_limit_hits.user_id is 'Their id.';
comment on column moderation.write_limit_hits.family is 'Which limit (private.write_limits).';
comment on column moderation.write_limit_hits.writes is 'Writes counted in the window (the limit).';
comment on column moderation.write_limit_hits.window_start is 'When the window began.';
comment on column moderation.write_limit_hits.window_end is 'When it ends (or ended).';
comment on column moderation.write_limit_hits.new_account is 'Whether the tighter limit of accounts younger than a day applied.';

create view moderation.trusted_writers as
select '@' || p.username as account, t.user_id, t.trusted_at,
  (select h.reason from private.write_limit_history h where h.user_id = t.user_id and h.action = 'trust'
   order by h.created_at desc limit 1) as reason
from private.trusted_writers t join public.profiles p on p.id = t.user_id
order by t.trusted_at desc;
comment on view moderation.trusted_writers is 'Accounts no write limit applies to, and why. Change with moderation.trust_writer.';
comment on column moderation.trusted_writers.account is 'Who.';
comment on column moderation.trusted_writers.user_id is 'Their id.';
comment on column moderation.trusted_writers.trusted_at is 'Since when.';
comment on column moderation.trusted_writers.reason is 'Why, from the history.';

create view moderation.write_limit_history as
select h.id, '@' || p.username as account, h.user_id, h.action, h.family, h.reason,
  coalesce('@' || a.username, h.database_role) as acted_by, h.created_at
from private.write_limit_history h
  left join public.profiles p on p.id = h.user_id
  left join public.profiles a on a.id = h.admin_id
order by h.created_at desc, h.id desc;
comment on view moderation.write_limit_history is 'Every trust, distrust and lifted write limit, newest first: who, why, who acted.';
comment on column moderation.write_limit_history.id is 'The entry''s id.';
comment on column moderation.write_limit_history.account is 'Who was acted on, while the account exists.';
comment on column moderation.write_limit_history.user_id is 'Their id.';
comment on column moderation.write_limit_history.action is 'trust, distrust or lift.';
comment on column moderation.write_limit_history.family is 'The family whose count was cleared (lift only).';
comment on column moderation.write_limit_history.reason is 'Why.';
comment on column moderation.write_limit_history.acted_by is '@admin through the API, or the database role of a Studio session.';
comment on column moderation.write_limit_history.created_at is 'When.';

create function moderation.trust_writer(p_username text, p_reason text, p_trust boolean default true)
returns text
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_id uuid := moderation.user_id(p_username);
begin
  -- The exemption and its record are written here only (private.refuse_unrecorded_limit_change).
  perform set_config('private.recording_limits', 'on', true);
  if p_trust then
    insert into private.trusted_writers (user_id) values (v_id) on conflict do nothing;
  else
    delete from private.trusted_writers t where t.user_id = v_id;
  end if;
  insert into private.write_limit_history (user_id, action, reason, admin_id, database_role)
  values (v_id, case when p_trust then 'trust' else 'distrust' end, p_reason, private.uid(),
    case when private.uid() is null then current_user end);
  perform set_config('private.recording_limits', 'off', true);
  return format('@%s %s', lower(btrim(p_username)),
    case when p_trust then 'is trusted: no write limit applies' else 'meets the write limits again' end);
end;
$$;
comment on function moderation.trust_writer(text, text, boolean) is
  'Exempt @username from every write limit, with a reason (recorded); p_trust false ends the exemption.';

create function moderation.lift_write_limit(p_username text, p_family text, p_reason text)
returns text
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_id uuid := moderation.user_id(p_username);
begin
  if not exists (select 1 from private.write_limits l where l.family = p_family) then
    perform private.fail(404, 'limit_not_found', format('No write limit named %s (see private.write_limits)', p_family));
  end if;
  perform set_config('private.recording_limits', 'on', true);
  delete from private.write_counts w
  where w.user_id = v_id and w.family = p_family
    and w.window_start = private.write_window_start((select l.window_length from private.write_limits l where l.family = p_family));
  insert into private.write_limit_history (user_id, action, family, reason, admin_id, database_role)
  values (v_id, 'lift', p_family, p_reason, private.uid(), case when private.uid() is null then current_user end);
  perform set_config('private.recording_limits', 'off', true);
  return format('@%s may write %s again: this window''s count is cleared', lower(btrim(p_username)), replace(p_family, '_', ' '));
end;
$$;
comment on function moderation.lift_write_limit(text, text, text) is
  'Clear @username''s count of one write family for the current window, with a reason (recorded).';
