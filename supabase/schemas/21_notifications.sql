-- Notifications: what others did that concerns an account, written by triggers in the transaction of the
-- event itself. None for one's own actions, none across a block (either way), none from a banned or
-- unconfirmed account. One per (recipient, kind, actor, subject): a like undone and redone, or a follow
-- ended and made again, does not notify twice. Deleting the subject (post, comment, account) deletes its
-- notifications; a follow request withdrawn or declined takes its notification with it, and so does a
-- mention edited out of a post. A recipient reads only notifications whose actor and subject they may still
-- see (the policies of profiles, posts and comments apply), and marks them read.

create type public.notification_kind as enum (
  'follow', 'follow_request', 'follow_accepted', 'post_like', 'comment_like', 'comment', 'reply', 'mention'
);

comment on type public.notification_kind is
  'follow, follow_request, follow_accepted (your request), post_like, comment_like, comment (on your post), reply (to your comment), mention (in a post or comment).';

create table public.notifications (
  id uuid primary key default gen_random_uuid(),
  recipient_id uuid not null references public.profiles (id) on delete cascade,
  actor_id uuid not null references public.profiles (id) on delete cascade,
  kind public.notification_kind not null,
  post_id uuid references public.posts (id) on delete cascade,
  comment_id uuid references public.comments (id) on delete cascade,
  created_at timestamptz not null default now(),
  read_at timestamptz,
  constraint notifications_once unique nulls not distinct (recipient_id, kind, actor_id, post_id, comment_id)
);
alter table public.notifications enable row level security;
-- The list's order, all or unread only; the unread count.
create index notifications_recipient_idx on public.notifications (recipient_id, created_at desc, id desc);
create index notifications_unread_idx on public.notifications (recipient_id, created_at desc, id desc) where read_at is null;
create index notifications_actor_idx on public.notifications (actor_id);
create index notifications_post_idx on public.notifications (post_id);
create index notifications_comment_idx on public.notifications (comment_id);

comment on table public.notifications is
  'What others did that concerns an account (written by triggers); published to Supabase Realtime where it runs.';
comment on column public.notifications.id is 'The notification''s id.';
comment on column public.notifications.recipient_id is 'Who is notified.';
comment on column public.notifications.actor_id is 'Who acted.';
comment on column public.notifications.kind is 'What happened.';
comment on column public.notifications.post_id is 'The post concerned: liked, commented, or where the mention or comment is.';
comment on column public.notifications.comment_id is 'The comment concerned: liked, the new comment or reply, or the one mentioning.';
comment on column public.notifications.created_at is 'When it happened.';
comment on column public.notifications.read_at is 'When the recipient marked it read; null while unread. The only column they may change.';

grant select, update (read_at) on public.notifications to authenticated;
grant all on public.notifications to service_role;

create policy "recipients read notifications about what they may see" on public.notifications
for select to authenticated
using (
  recipient_id = (select private.uid())
  and exists (select 1 from public.profiles u where u.id = actor_id offset 0)
  and (post_id is null or exists (select 1 from public.posts p where p.id = post_id offset 0))
  and (comment_id is null or exists (select 1 from public.comments c where c.id = comment_id offset 0))
);

create policy "recipients mark their notifications read" on public.notifications
for update to authenticated
using (recipient_id = (select private.uid()))
with check (recipient_id = (select private.uid()));

-- Supabase Realtime streams the table's inserts to subscribed supabase-js clients (under the select policy),
-- where the platform made its publication: hosted projects. This project's local stack has no Realtime.
do $$
begin
  if not exists (select 1 from pg_catalog.pg_publication p where p.pubname = 'supabase_realtime') then
    raise notice 'no supabase_realtime publication here: notifications are not published';
    return;
  end if;
  -- Nothing to add where the publication already covers the table (one made FOR ALL TABLES, or added by hand).
  if not exists (select 1 from pg_catalog.pg_publication_tables t
                 where t.pubname = 'supabase_realtime' and t.schemaname = 'public' and t.tablename = 'notifications') then
    alter publication supabase_realtime add table public.notifications;
  end if;
end;
$$;

-- writing ----------------------------------------------------------------------------------------------
-- The one rule of who is notified, for every trigger below.
create function private.notify(
  p_recipient uuid, p_actor uuid, p_kind public.notification_kind, p_post_id uuid, p_comment_id uuid,
  p_seen boolean default false
)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  if p_recipient is null or p_recipient = p_actor
     or not exists (select 1 from public.profiles a
                    where a.id = p_actor and a.confirmed_at is not null and a.banned_at is null)
     or exists (select 1 from public.blocks b
                where (b.blocker_id = p_recipient and b.blocked_id = p_actor)
                   or (b.blocker_id = p_actor and b.blocked_id = p_recipient))
     or private.mutes_now(p_recipient, p_actor) then
    return;
  end if;
  insert into public.notifications (recipient_id, actor_id, kind, post_id, comment_id, read_at)
  values (p_recipient, p_actor, p_kind, p_post_id, p_comment_id, case when p_seen then now() end)
  on conflict on constraint notifications_once do nothing;
end;
$$;
revoke execute on function private.notify(uuid, uuid, public.notification_kind, uuid, uuid, boolean) from public;
comment on function private.notify(uuid, uuid, public.notification_kind, uuid, uuid, boolean) is
  'Notifies p_recipient of p_actor''s act, unless it is their own, across a block, muted by the recipient, by a banned or unconfirmed account, or already notified; p_seen: marked read already.';

create function private.notify_follow()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    perform private.notify(new.followee_id, new.follower_id,
      case new.status when 'accepted' then 'follow' else 'follow_request' end::public.notification_kind, null, null);
  else
    perform private.notify(new.follower_id, new.followee_id, 'follow_accepted', null, null);
  end if;
  return null;
end;
$$;
revoke execute on function private.notify_follow() from public;
comment on function private.notify_follow() is 'Trigger: notifies a new follower or follow request, and an accepted request.';

create trigger notify_follow
after insert on public.follows
for each row execute function private.notify_follow();

create trigger notify_follow_accepted
after update of status on public.follows
for each row
when (old.status = 'pending' and new.status = 'accepted')
execute function private.notify_follow();

create function private.forget_follow_request()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from public.notifications n
  where n.recipient_id = old.followee_id and n.actor_id = old.follower_id and n.kind = 'follow_request';
  return null;
end;
$$;
revoke execute on function private.forget_follow_request() from public;
comment on function private.forget_follow_request() is 'Trigger: a follow request withdrawn or declined takes its notification with it.';

create trigger forget_follow_request
after delete on public.follows
for each row
when (old.status = 'pending')
execute function private.forget_follow_request();

create function private.notify_post_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.notify((select p.author_id from public.posts p where p.id = new.post_id), new.user_id,
    'post_like', new.post_id, null);
  return null;
end;
$$;
revoke execute on function private.notify_post_like() from public;
comment on function private.notify_post_like() is 'Trigger: notifies a post''s author of a like.';

create trigger notify_post_like
after insert on public.post_likes
for each row execute function private.notify_post_like();

create function private.notify_comment_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_comment public.comments;
begin
  select * into v_comment from public.comments c where c.id = new.comment_id;
  perform private.notify(v_comment.author_id, new.user_id, 'comment_like', v_comment.post_id, v_comment.id);
  return null;
end;
$$;
revoke execute on function private.notify_comment_like() from public;
comment on function private.notify_comment_like() is 'Trigger: notifies a comment''s author of a like.';

create trigger notify_comment_like
after insert on public.comment_likes
for each row execute function private.notify_comment_like();

-- A comment notifies the post's author; a reply, the author of the comment it answers.
create function private.notify_comment()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.parent_id is null then
    perform private.notify((select p.author_id from public.posts p where p.id = new.post_id), new.author_id,
      'comment', new.post_id, new.id);
  else
    perform private.notify((select c.author_id from public.comments c where c.id = new.parent_id), new.author_id,
      'reply', new.post_id, new.id);
  end if;
  return null;
end;
$$;
revoke execute on function private.notify_comment() from public;
comment on function private.notify_comment() is 'Trigger: notifies a post''s author of a comment, a comment''s author of a reply.';

create trigger notify_comment
after insert on public.comments
for each row execute function private.notify_comment();

-- The accounts once notified of a mention in a post, kept while the post lives.
create table private.post_mention_notices (
  post_id uuid not null references public.posts (id) on delete cascade,
  user_id uuid not null references public.profiles (id) on delete cascade,
  primary key (post_id, user_id)
);
alter table private.post_mention_notices enable row level security;
create index post_mention_notices_user_idx on private.post_mention_notices (user_id);
comment on table private.post_mention_notices is
  'Who was once notified of a mention in a post: edited out and back in, a mention is not news again.';
comment on column private.post_mention_notices.post_id is 'The post.';
comment on column private.post_mention_notices.user_id is 'The account notified of a mention in it.';

-- Each mention is notified once, when the account first appears in the text; a mention edited out of a post
-- takes its notification with it. Edited back in, the notification comes back already read: editing a post
-- over and over does not ping the account again.
create function private.notify_post_mention()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    insert into private.post_mention_notices (post_id, user_id) values (new.post_id, new.user_id) on conflict do nothing;
    perform private.notify(new.user_id, (select p.author_id from public.posts p where p.id = new.post_id),
      'mention', new.post_id, null, p_seen => not found);
  else
    delete from public.notifications n
    where n.recipient_id = old.user_id and n.kind = 'mention' and n.post_id = old.post_id and n.comment_id is null;
  end if;
  return null;
end;
$$;
revoke execute on function private.notify_post_mention() from public;
comment on function private.notify_post_mention() is 'Trigger: notifies a newly mentioned account; forgets a mention edited out.';

create trigger notify_post_mention
after insert or delete on public.post_mentions
for each row execute function private.notify_post_mention();

create function private.notify_comment_mention()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_comment public.comments;
begin
  select * into v_comment from public.comments c where c.id = new.comment_id;
  perform private.notify(new.user_id, v_comment.author_id, 'mention', v_comment.post_id, v_comment.id);
  return null;
end;
$$;
revoke execute on function private.notify_comment_mention() from public;
comment on function private.notify_comment_mention() is 'Trigger: notifies an account mentioned in a comment.';

create trigger notify_comment_mention
after insert on public.comment_mentions
for each row execute function private.notify_comment_mention();

-- API --------------------------------------------------------------------------------------------------
create view private.notification_items with (security_invoker = true) as
select n.id, n.recipient_id, n.created_at, n.read_at,
  jsonb_build_object(
    'id', n.id,
    'kind', n.kind,
    'actor', (select a.card from private.cards a where a.id = n.actor_id),
    'post_id', n.post_id,
    'comment_id', n.comment_id,
    -- What a client shows beside it ("cleo replied: …"), read through the policies like the subject itself.
    'post_excerpt', (select left(p.body, 140) from public.posts p where p.id = n.post_id),
    'comment_excerpt', (select left(c.body, 140) from public.comments c where c.id = n.comment_id),
    'created_at', n.created_at,
    'read_at', n.read_at
  ) as item
from public.notifications n;
grant select on private.notification_items to authenticated, service_role;
comment on view private.notification_items is
  'Each of the caller''s visible notifications as JSON, with the actor''s card and the first 140 characters of its post and comment.';

-- The caller's notifications, newest first, all or unread only: one query per case, each served by its
-- index (notifications_recipient_idx, notifications_unread_idx) in list order.
create function public.notifications(p_unread boolean default false, p_cursor text default null, p_limit integer default null,
  p_newer_than text default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_newer record := private.decode_newer_than(p_newer_than);
  v_rows jsonb;
begin
  if coalesce(p_unread, false) then
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item)
           order by x.created_at desc, x.id desc), '[]'::jsonb)
    into v_rows
    from (
      select i.created_at, i.id, i.item from private.notification_items i
      where i.recipient_id = v_me and i.read_at is null and (i.created_at, i.id) < (v_after.at, v_after.id)
        and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      order by i.created_at desc, i.id desc
      limit v_limit + 1
    ) x;
  else
    select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item)
           order by x.created_at desc, x.id desc), '[]'::jsonb)
    into v_rows
    from (
      select i.created_at, i.id, i.item from private.notification_items i
      where i.recipient_id = v_me and (i.created_at, i.id) < (v_after.at, v_after.id)
        and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      order by i.created_at desc, i.id desc
      limit v_limit + 1
    ) x;
  end if;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.notifications(boolean, text, integer, text) from public;
grant execute on function public.notifications(boolean, text, integer, text) to authenticated, service_role;
comment on function public.notifications(boolean, text, integer, text) is
  'The caller''s notifications (p_unread: unread only), newest first (newer than p_newer_than when given).';

create function private.unread_notifications()
returns integer
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select count(*) from public.notifications n where n.recipient_id = private.uid() and n.read_at is null);
end;
$$;
revoke execute on function private.unread_notifications() from public;
grant execute on function private.unread_notifications() to authenticated, service_role;
comment on function private.unread_notifications() is 'How many of the caller''s visible notifications are unread.';

-- Marks read every unread notification of the caller, or those up to (and including) p_until.
create function public.read_notifications(p_until uuid default null)
returns jsonb
language plpgsql
volatile
set search_path = ''
as $$
declare
  v_me uuid := private.require_uid();
  v_until public.notifications;
  v_marked integer;
begin
  if p_until is not null then
    select * into v_until from public.notifications n where n.id = p_until and n.recipient_id = v_me;
    if not found then
      perform private.fail(404, 'notification_not_found', 'Notification not found');
    end if;
  end if;
  update public.notifications n set read_at = now()
  where n.recipient_id = v_me and n.read_at is null
    and (p_until is null or (n.created_at, n.id) <= (v_until.created_at, v_until.id));
  get diagnostics v_marked = row_count;
  return jsonb_build_object('marked', v_marked, 'unread_notifications', private.unread_notifications());
end;
$$;
revoke execute on function public.read_notifications(uuid) from public;
grant execute on function public.read_notifications(uuid) to authenticated, service_role;
comment on function public.read_notifications(uuid) is
  'Marks the caller''s unread notifications read: all, or those up to and including p_until; returns how many, and how many stay unread.';
