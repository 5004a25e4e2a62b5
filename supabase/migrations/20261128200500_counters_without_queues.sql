-- Counters many writers want at once no longer queue them on the row (10_counters.sql): a writer takes the row
-- when free, else leaves its change pending for the next one to fold; the shapes add what is pending.
create table private.pending_counts (
  id bigint generated always as identity primary key,
  counter text not null check (counter in ('post_likes', 'post_comments', 'comment_likes', 'followers', 'following')),
  target_id uuid not null,
  delta integer not null check (delta <> 0)
);
create index pending_counts_target_idx on private.pending_counts (counter, target_id);
alter table private.pending_counts enable row level security;
-- The shapes read them as the caller (security-invoker views): a count anybody may see, nothing more.
create policy "the shapes add pending counts" on private.pending_counts for select to anon, authenticated using (true);
grant select on private.pending_counts to anon, authenticated, service_role;
comment on table private.pending_counts is
  'Counter changes made while their row was busy, folded in by the next change that finds it free (10_counters.sql).';
comment on column private.pending_counts.id is 'In the order the changes were left.';
comment on column private.pending_counts.counter is 'Which counter: posts.likes_count or comments_count, comments.likes_count, profiles.followers_count or following_count.';
comment on column private.pending_counts.target_id is 'The post, comment or profile whose counter it is.';
comment on column private.pending_counts.delta is 'The change to add.';

create function private.add_to_counter(p_counter text, p_target uuid, p_delta integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_total integer;
begin
  if p_target is null then
    return;
  end if;
  if p_counter in ('post_likes', 'post_comments') then
    perform from public.posts p where p.id = p_target for no key update skip locked;
  elsif p_counter = 'comment_likes' then
    perform from public.comments c where c.id = p_target for no key update skip locked;
  else
    perform from public.profiles p where p.id = p_target for no key update skip locked;
  end if;
  if not found then
    if (p_counter in ('post_likes', 'post_comments') and exists (select from public.posts p where p.id = p_target))
       or (p_counter = 'comment_likes' and exists (select from public.comments c where c.id = p_target))
       or (p_counter in ('followers', 'following') and exists (select from public.profiles p where p.id = p_target)) then
      insert into private.pending_counts (counter, target_id, delta) values (p_counter, p_target, p_delta);
    end if;
    return;
  end if;
  with folded as (
    delete from private.pending_counts d where d.counter = p_counter and d.target_id = p_target returning d.delta
  )
  select p_delta + coalesce(sum(f.delta), 0) into v_total from folded f;
  if v_total = 0 then
    return;
  end if;
  case p_counter
    when 'post_likes' then
      update public.posts p set likes_count = greatest(p.likes_count + v_total, 0) where p.id = p_target;
    when 'post_comments' then
      update public.posts p set comments_count = greatest(p.comments_count + v_total, 0) where p.id = p_target;
    when 'comment_likes' then
      update public.comments c set likes_count = greatest(c.likes_count + v_total, 0) where c.id = p_target;
    when 'followers' then
      update public.profiles p set followers_count = greatest(p.followers_count + v_total, 0) where p.id = p_target;
    else
      update public.profiles p set following_count = greatest(p.following_count + v_total, 0) where p.id = p_target;
  end case;
end;
$$;
revoke execute on function private.add_to_counter(text, uuid, integer) from public;
comment on function private.add_to_counter(text, uuid, integer) is
  'Adds to a counter without waiting for its row: onto the row when free (folding the pending changes), else pending.';

create function private.fold_pending_counts()
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_pending record;
  v_folded integer := 0;
begin
  -- The counters refuse any other writer (private.refuse_counter_edit).
  perform set_config('private.recounting', 'on', true);
  for v_pending in select distinct d.counter, d.target_id from private.pending_counts d loop
    perform private.add_to_counter(v_pending.counter, v_pending.target_id, 0);
    v_folded := v_folded + 1;
  end loop;
  perform set_config('private.recounting', 'off', true);
  return v_folded;
end;
$$;
revoke execute on function private.fold_pending_counts() from public;
grant execute on function private.fold_pending_counts() to service_role;
comment on function private.fold_pending_counts() is 'Folds the pending counter changes whose rows are free into their columns.';

create or replace function private.count_follow()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.follows := case when tg_op = 'DELETE' then old else new end;
  v_delta integer;
begin
  v_delta := case
    when tg_op = 'INSERT' and new.status = 'accepted' then 1
    when tg_op = 'UPDATE' and old.status = 'pending' and new.status = 'accepted' then 1
    when tg_op = 'DELETE' and old.status = 'accepted' then -1
    else 0
  end;
  if v_delta <> 0 then
    perform private.add_to_counter('followers', v_row.followee_id, v_delta);
    perform private.add_to_counter('following', v_row.follower_id, v_delta);
  end if;
  return null;
end;
$$;

create or replace function private.count_post_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.add_to_counter('post_likes', new.post_id, 1);
  return null;
end;
$$;

create or replace function private.uncount_post_likes()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.add_to_counter('post_likes', gone.post_id, -gone.likes)
  from (select o.post_id, count(*)::integer as likes from old_likes o group by o.post_id order by o.post_id) gone;
  return null;
end;
$$;

create or replace function private.count_comment()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.comments := case when tg_op = 'DELETE' then old else new end;
  v_delta integer := case when tg_op = 'INSERT' then 1 else -1 end;
begin
  perform private.add_to_counter('post_comments', v_row.post_id, v_delta);
  if v_row.parent_id is not null then
    update public.comments c set replies_count = greatest(c.replies_count + v_delta, 0) where c.id = v_row.parent_id;
  end if;
  return null;
end;
$$;

create or replace function private.count_comment_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform private.add_to_counter('comment_likes', case when tg_op = 'INSERT' then new.comment_id else old.comment_id end,
    case when tg_op = 'INSERT' then 1 else -1 end);
  return null;
end;
$$;

create or replace function private.recount_counters()
returns integer
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_fixed integer := 0;
  v_rows integer;
begin
  -- The counters refuse any other writer (private.refuse_counter_edit). The rows are counted afresh: what was
  -- pending is in them.
  perform set_config('private.recounting', 'on', true);
  delete from private.pending_counts;
  update public.profiles p set
    followers_count = c.followers, following_count = c.following, posts_count = c.posts
  from (
    select p2.id,
      coalesce(fr.n, 0)::integer as followers, coalesce(fg.n, 0)::integer as following, coalesce(po.n, 0)::integer as posts
    from public.profiles p2
    left join (select f.followee_id as id, count(*) as n from public.follows f where f.status = 'accepted' group by 1) fr
      on fr.id = p2.id
    left join (select f.follower_id as id, count(*) as n from public.follows f where f.status = 'accepted' group by 1) fg
      on fg.id = p2.id
    left join (select x.author_id as id, count(*) as n from public.posts x group by 1) po on po.id = p2.id
  ) c
  where c.id = p.id
    and (p.followers_count, p.following_count, p.posts_count) is distinct from (c.followers, c.following, c.posts);
  get diagnostics v_rows = row_count;
  v_fixed := v_fixed + v_rows;

  update public.posts p set likes_count = c.likes, comments_count = c.comments
  from (
    select p2.id, coalesce(l.n, 0)::integer as likes, coalesce(x.n, 0)::integer as comments
    from public.posts p2
    left join (select l.post_id as id, count(*) as n from public.post_likes l group by 1) l on l.id = p2.id
    left join (select x.post_id as id, count(*) as n from public.comments x group by 1) x on x.id = p2.id
  ) c
  where c.id = p.id and (p.likes_count, p.comments_count) is distinct from (c.likes, c.comments);
  get diagnostics v_rows = row_count;
  v_fixed := v_fixed + v_rows;

  update public.comments p set likes_count = c.likes, replies_count = c.replies
  from (
    select c2.id, coalesce(l.n, 0)::integer as likes, coalesce(r.n, 0)::integer as replies
    from public.comments c2
    left join (select l.comment_id as id, count(*) as n from public.comment_likes l group by 1) l on l.id = c2.id
    left join (select r.parent_id as id, count(*) as n from public.comments r where r.parent_id is not null group by 1) r
      on r.id = c2.id
  ) c
  where c.id = p.id and (p.likes_count, p.replies_count) is distinct from (c.likes, c.replies);
  get diagnostics v_rows = row_count;
  perform set_config('private.recounting', 'off', true);
  return v_fixed + v_rows;
end;
$$;

create or replace view private.profile_items with (security_invoker = true) as
select p.id, p.username,
  jsonb_build_object(
    'id', p.id,
    'username', p.username,
    'display_name', p.display_name,
    'bio', p.bio,
    'avatar_url', p.avatar_url,
    'time_zone', p.time_zone,
    'is_private', p.is_private,
    'followers_count', p.followers_count + (select coalesce(sum(d.delta), 0)::integer from private.pending_counts d
      where d.counter = 'followers' and d.target_id = p.id),
    'following_count', p.following_count + (select coalesce(sum(d.delta), 0)::integer from private.pending_counts d
      where d.counter = 'following' and d.target_id = p.id),
    'posts_count', p.posts_count,
    'banned', p.banned_at is not null,
    'created_at', p.created_at,
    'viewer', case when p.id is distinct from (select private.uid()) and (select private.uid()) is not null
      then jsonb_build_object(
        'following', exists (select 1 from public.follows f
          where f.follower_id = (select private.uid()) and f.followee_id = p.id and f.status = 'accepted' offset 0),
        'requested', exists (select 1 from public.follows f
          where f.follower_id = (select private.uid()) and f.followee_id = p.id and f.status = 'pending' offset 0),
        'follows_you', exists (select 1 from public.follows f
          where f.follower_id = p.id and f.followee_id = (select private.uid()) and f.status = 'accepted' offset 0),
        'close_friend', exists (select 1 from public.close_friends c
          where c.owner_id = (select private.uid()) and c.friend_id = p.id offset 0))
    end
  ) as item
from public.profiles p;

create or replace view private.post_bodies with (security_invoker = true) as
select p.id, p.author_id, p.day, p.created_at,
  jsonb_build_object(
    'id', p.id,
    'body', p.body,
    'media', to_jsonb(p.media),
    'emotion', p.emotion,
    'privacy', p.privacy,
    'day', p.day,
    'likes_count', p.likes_count + (select coalesce(sum(d.delta), 0)::integer from private.pending_counts d
      where d.counter = 'post_likes' and d.target_id = p.id),
    'comments_count', p.comments_count + (select coalesce(sum(d.delta), 0)::integer from private.pending_counts d
      where d.counter = 'post_comments' and d.target_id = p.id),
    'banned', p.banned_at is not null,
    'created_at', p.created_at,
    'edited_at', p.edited_at,
    'mentions', coalesce((select jsonb_agg(a.card order by a.card ->> 'username')
      from public.post_mentions m join private.cards a on a.id = m.user_id where m.post_id = p.id), '[]'::jsonb),
    'viewer', case when (select private.uid()) is not null then jsonb_build_object(
      'liked', exists (select 1 from public.post_likes l where l.post_id = p.id and l.user_id = (select private.uid()) offset 0),
      'is_author', p.author_id = (select private.uid()))
    end
  ) as item
from public.posts p;

create or replace view private.comment_items with (security_invoker = true) as
select c.id, c.post_id, c.parent_id, c.created_at, d.can_delete,
  jsonb_build_object(
    'id', c.id,
    'post_id', c.post_id,
    'parent_id', c.parent_id,
    'author', (select a.card from private.cards a where a.id = c.author_id),
    'body', c.body,
    'likes_count', c.likes_count + (select coalesce(sum(d.delta), 0)::integer from private.pending_counts d
      where d.counter = 'comment_likes' and d.target_id = c.id),
    'replies_count', c.replies_count,
    'mentions', coalesce((select jsonb_agg(a.card order by a.card ->> 'username')
      from public.comment_mentions m join private.cards a on a.id = m.user_id where m.comment_id = c.id), '[]'::jsonb),
    'created_at', c.created_at,
    'viewer', case when (select private.uid()) is not null then jsonb_build_object(
      'liked', exists (select 1 from public.comment_likes l
        where l.comment_id = c.id and l.user_id = (select private.uid()) offset 0),
      'can_delete', d.can_delete)
    end
  ) as item
from public.comments c
cross join lateral (
  select c.author_id = (select private.uid())
      or exists (select 1 from public.posts p where p.id = c.post_id and p.author_id = (select private.uid()) offset 0)
      or (select private.is_admin()) as can_delete
) d;

