-- Counters kept in the same transaction as the rows they count. Each change is one `update … set n = n ± k`
-- (k = 1 a row, or the rows a statement deleted for likes, which leave by the thousand with an account), so
-- concurrent writers queue on the row lock and the count stays exact; rows are updated in id order so two
-- writers never wait on each other crosswise. private.recount_counters() recomputes everything. A decrement
-- stops at zero: a counter found too low (a database restored in part, say) must not make a user's unlike or
-- unfollow fail; the recount repairs it. Nothing else writes a counter (32_direct_edit_guards.sql).

create function private.count_follow()
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
    update public.profiles p set
      followers_count = greatest(p.followers_count + case when p.id = v_row.followee_id then v_delta else 0 end, 0),
      following_count = greatest(p.following_count + case when p.id = v_row.follower_id then v_delta else 0 end, 0)
    where p.id in (v_row.follower_id, v_row.followee_id);
  end if;
  return null;
end;
$$;
revoke execute on function private.count_follow() from public;
comment on function private.count_follow() is 'Trigger: keeps followers_count and following_count of both accounts.';

create trigger count_follow
after insert or update or delete on public.follows
for each row execute function private.count_follow();

create function private.count_post()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.profiles p
  set posts_count = greatest(p.posts_count + case when tg_op = 'INSERT' then 1 else -1 end, 0)
  where p.id = case when tg_op = 'INSERT' then new.author_id else old.author_id end;
  return null;
end;
$$;
revoke execute on function private.count_post() from public;
comment on function private.count_post() is 'Trigger: keeps the author''s posts_count.';

create trigger count_post
after insert or delete on public.posts
for each row execute function private.count_post();

create function private.count_post_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.posts p set likes_count = p.likes_count + 1 where p.id = new.post_id;
  return null;
end;
$$;
revoke execute on function private.count_post_like() from public;
comment on function private.count_post_like() is 'Trigger: counts a new like in its post''s likes_count.';

create trigger count_post_like
after insert on public.post_likes
for each row execute function private.count_post_like();

-- Likes leave by the thousand when an account goes (every like it gave, and every like on its posts): one
-- update per post for each deleting statement, not one per like (a row trigger cost ~0.1 ms a like).
create function private.uncount_post_likes()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform 1 from public.posts p where p.id in (select o.post_id from old_likes o) order by p.id for update;
  update public.posts p set likes_count = greatest(p.likes_count - gone.likes, 0)
  from (select o.post_id, count(*)::integer as likes from old_likes o group by o.post_id) gone
  where p.id = gone.post_id;
  return null;
end;
$$;
revoke execute on function private.uncount_post_likes() from public;
comment on function private.uncount_post_likes() is 'Trigger: takes the deleted likes off their posts'' likes_count, a post at a time.';

create trigger uncount_post_likes
after delete on public.post_likes
referencing old table as old_likes
for each statement execute function private.uncount_post_likes();

create function private.count_comment()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row public.comments := case when tg_op = 'DELETE' then old else new end;
  v_delta integer := case when tg_op = 'INSERT' then 1 else -1 end;
begin
  update public.posts p set comments_count = greatest(p.comments_count + v_delta, 0) where p.id = v_row.post_id;
  if v_row.parent_id is not null then
    update public.comments c set replies_count = greatest(c.replies_count + v_delta, 0) where c.id = v_row.parent_id;
  end if;
  return null;
end;
$$;
revoke execute on function private.count_comment() from public;
comment on function private.count_comment() is 'Trigger: keeps the post''s comments_count and the parent''s replies_count.';

create trigger count_comment
after insert or delete on public.comments
for each row execute function private.count_comment();

create function private.count_comment_like()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.comments c
  set likes_count = greatest(c.likes_count + case when tg_op = 'INSERT' then 1 else -1 end, 0)
  where c.id = case when tg_op = 'INSERT' then new.comment_id else old.comment_id end;
  return null;
end;
$$;
revoke execute on function private.count_comment_like() from public;
comment on function private.count_comment_like() is 'Trigger: keeps the comment''s likes_count.';

create trigger count_comment_like
after insert or delete on public.comment_likes
for each row execute function private.count_comment_like();

-- Recomputes every counter from the rows; returns how many rows were wrong (0 when all is well). Set-based:
-- each count is one grouped scan of its table joined to the rows it counts, and only wrong rows are written.
create function private.recount_counters()
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
  -- The counters refuse any other writer (private.refuse_counter_edit).
  perform set_config('private.recounting', 'on', true);
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
revoke execute on function private.recount_counters() from public;
grant execute on function private.recount_counters() to service_role;
comment on function private.recount_counters() is 'Recomputes every counter from the rows; returns the number of rows corrected.';
