-- Counters kept in the same transaction as the rows they count. Each change is one `update … set n = n ± k`
-- (k = 1 a row, or the rows a statement deleted for likes, which leave by the thousand with an account); a
-- decrement stops at zero: a counter found too low (a database restored in part, say) must not make a user's unlike
-- or unfollow fail; the recount repairs it. private.recount_counters() recomputes everything. Nothing else writes a
-- counter (32_direct_edit_guards.sql).
--
-- A target many accounts write to at once (a viral post's likes and comments, a followed account's followers, a
-- comment's likes) would queue its writers on its row lock, held to each one's commit. So a writer takes the row only
-- when it is free (`for no key update skip locked`), and otherwise leaves its change in private.pending_counts; the
-- next writer that finds the row free folds every pending change of that counter in with its own. What the API
-- shows adds the pending changes (private.post_bodies and the other shapes, 11_api_shapes.sql), so it is exact; the
-- counter column alone (PostgREST's `select('likes_count')`, say) is behind by the changes pending since the row was
-- last free, until the next change of that counter folds them (or private.fold_pending_counts()). Readers add
-- them through private.pending_totals.
--
-- A pending change is written on a row of that counter left at 0 that no other writer holds this instant, and a
-- fold sets the rows it takes back to 0 rather than deleting them: a hot counter keeps about a row per change
-- pending at the same moment, updated again and again (HOT updates, pruned within the page, fillfactor 10),
-- instead of a row inserted and deleted per change, whose dead index entries every reader of the counter walked
-- until the next vacuum (supabase/bench/reports/WRITES.md).

-- The rows holding counters are vacuumed once a minute while they have 100 dead versions, not when a fifth of the
-- table is dead (the default, never during a viral post's burst at a million posts). Each version of a hot row
-- carries a multixact (the writers' foreign-key checks hold it in key share while a fold updates it), and a scan
-- never marks such a dead version's index entry dead (Postgres's HeapTupleIsSurelyDead cannot tell without
-- pg_multixact): only a vacuum removes them. Between two vacuums the hot row leaves page after page whose dead
-- versions every look-up of it walks: at 1 M posts, 16 writers of one post fell to ×0.17–0.25 of writers of
-- different posts within minutes, and stayed at ×0.91–1.27 of them once the post's table was vacuumed every minute
-- (supabase/bench/reports/WRITES-1M.md, "A hot post after a long burst"). A vacuum reads only the pages changed
-- since the last one (0.34 s for posts at 1 M in the middle of a burst).
alter table public.posts set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100);
alter table public.comments set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100);
alter table public.profiles set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100);

create table private.pending_counts (
  id bigint generated always as identity primary key,
  counter text not null check (counter in (
    'post_likes', 'post_comments', 'comment_likes', 'followers', 'following',
    'user_reports', 'post_reports', 'comment_reports'
  )),
  target_id uuid not null,
  delta integer not null
) with (fillfactor = 10);
create index pending_counts_target_idx on private.pending_counts (counter, target_id);
alter table private.pending_counts enable row level security;
-- The shapes read them as the caller (security-invoker views): a count anybody may see, nothing more; pending
-- reports (06_moderation.sql) only admins, as the reports' summary.
create policy "the shapes add pending counts" on private.pending_counts for select to anon, authenticated
using (counter not like '%\_reports' or (select private.is_admin()));
grant select on private.pending_counts to anon, authenticated, service_role;
comment on table private.pending_counts is
  'Counter changes made while their row was busy, folded in by the next change that finds it free (10_counters.sql).';
comment on column private.pending_counts.id is 'In the order the rows were made.';
comment on column private.pending_counts.counter is 'Which counter: posts.likes_count or comments_count, comments.likes_count, profiles.followers_count or following_count, or the reports of a user, post or comment (private.reported_elements.reports_count).';
comment on column private.pending_counts.target_id is 'The post, comment or profile whose counter it is (the reported element''s, for reports).';
comment on column private.pending_counts.delta is 'The change to add (0 once folded: the row waits for the next busy writer).';

-- The sum of each counter's pending changes, what every reader adds to the column: looked up by counter and target
-- (a correlated `where t.counter = … and t.target_id = …` reaches pending_counts_target_idx), one place for the rule.
create view private.pending_totals with (security_invoker = true) as
select d.counter, d.target_id, sum(d.delta)::integer as delta
from private.pending_counts d
where d.delta <> 0
group by d.counter, d.target_id;
grant select on private.pending_totals to anon, authenticated, service_role;
comment on view private.pending_totals is
  'Each counter''s pending changes summed: what the shapes and the integrity report add to its column.';

-- Leaves a change pending: written on a row of its counter left at 0 that no writer holds this instant, else on a
-- new row. Never added to a row still holding a change: a fold must be able to take every committed change (those
-- on rows a writer holds it would skip, and could then take the column below zero while one of them is pending).
create function private.leave_pending(p_counter text, p_target uuid, p_delta integer)
returns void
language plpgsql
volatile
security definer
set search_path = ''
as $$
begin
  update private.pending_counts d set delta = d.delta + p_delta
  where d.id = (
    select f.id from private.pending_counts f where f.counter = p_counter and f.target_id = p_target and f.delta = 0
    limit 1 for no key update skip locked
  );
  if not found then
    insert into private.pending_counts (counter, target_id, delta) values (p_counter, p_target, p_delta);
  end if;
end;
$$;
revoke execute on function private.leave_pending(text, uuid, integer) from public;
comment on function private.leave_pending(text, uuid, integer) is
  'Leaves a counter change pending, on a free row of its counter left at 0 or on a new one.';

-- Takes the pending changes of a counter that no writer holds this instant: sets them to 0 (their rows stay for the
-- next busy writer) and answers their sum. Those held are a writer's not committed yet: the next fold takes them.
-- A burst leaves as many rows as changes were pending at its peak, and every reader and fold of the counter walks
-- them all: past 64 (more than a burst of 64 writers keeps in use), the rows left at 0 that no writer holds go, by
-- a fold that found nothing to take (the burst is over). Not during a burst: the next writers would insert rows
-- again, and the index entries of rows inserted and deleted pile up on the counter's one key faster than anything
-- removes them (supabase/bench/reports/WRITES.md, "The small stack's gap, found").
create function private.take_pending(p_counter text, p_target uuid)
returns integer
language sql
volatile
security definer
set search_path = ''
as $$
  with taken as (
    select d.id, d.delta from private.pending_counts d
    where d.counter = p_counter and d.target_id = p_target and d.delta <> 0
    for no key update skip locked
  ),
  zeroed as (
    update private.pending_counts d set delta = 0 from taken t where d.id = t.id returning t.delta
  ),
  spare as (
    delete from private.pending_counts d
    where not exists (select from taken) and d.id in (
      select f.id from private.pending_counts f
      where f.counter = p_counter and f.target_id = p_target and f.delta = 0
      order by f.id offset 64
      for update skip locked
    )
  )
  select coalesce(sum(z.delta), 0)::integer from zeroed z
$$;
revoke execute on function private.take_pending(text, uuid) from public;
comment on function private.take_pending(text, uuid) is
  'Takes (sets to 0) the pending changes of a counter no writer holds, and answers their sum.';

-- Adds p_delta to a counter: onto its row when the row is free, with every change pending for it; else as a
-- pending change. A target that is gone counts nothing.
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
    -- A fold (p_delta 0) of a row busy this instant leaves its pending changes for the next.
    if p_delta <> 0 and ((p_counter in ('post_likes', 'post_comments') and exists (select from public.posts p where p.id = p_target))
       or (p_counter = 'comment_likes' and exists (select from public.comments c where c.id = p_target))
       or (p_counter in ('followers', 'following') and exists (select from public.profiles p where p.id = p_target))) then
      perform private.leave_pending(p_counter, p_target, p_delta);
    end if;
    return;
  end if;
  v_total := p_delta + private.take_pending(p_counter, p_target);
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

-- Folds every pending change whose row is free now (an admin, or a test, wanting the columns exact), and drops the
-- rows left at 0 that no writer holds; answers how many counters it brought up to date.
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
  for v_pending in select distinct d.counter, d.target_id from private.pending_counts d where d.delta <> 0 loop
    if v_pending.counter like '%\_reports' then
      perform private.add_report_to_summary(split_part(v_pending.counter, '_', 1)::public.report_target, v_pending.target_id, 0);
    else
      perform private.add_to_counter(v_pending.counter, v_pending.target_id, 0);
    end if;
    v_folded := v_folded + 1;
  end loop;
  delete from private.pending_counts d
  where d.id in (select f.id from private.pending_counts f where f.delta = 0 for update skip locked);
  perform set_config('private.recounting', 'off', true);
  return v_folded;
end;
$$;
revoke execute on function private.fold_pending_counts() from public;
grant execute on function private.fold_pending_counts() to service_role;
comment on function private.fold_pending_counts() is 'Folds the pending counter changes whose rows are free into their columns.';

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
    perform private.add_to_counter('followers', v_row.followee_id, v_delta);
    perform private.add_to_counter('following', v_row.follower_id, v_delta);
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
  perform private.add_to_counter('post_likes', new.post_id, 1);
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
  perform private.add_to_counter('post_likes', gone.post_id, -gone.likes)
  from (select o.post_id, count(*)::integer as likes from old_likes o group by o.post_id order by o.post_id) gone;
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
  perform private.add_to_counter('post_comments', v_row.post_id, v_delta);
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
  perform private.add_to_counter('comment_likes', case when tg_op = 'INSERT' then new.comment_id else old.comment_id end,
    case when tg_op = 'INSERT' then 1 else -1 end);
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
  -- What was pending is folded in first, so that the columns alone are exact where their rows are free. The
  -- counters refuse any other writer (private.refuse_counter_edit).
  perform private.fold_pending_counts();
  perform set_config('private.recounting', 'on', true);
  -- Each counter gets what its rows, its column and its pending changes disagree by, counted in one snapshot and
  -- added to the column as it is when written: a write in flight is in none of the three or, committed, in all,
  -- so live writes are neither counted twice nor lost (an absolute value would overwrite the change of a writer
  -- holding the row, and dropping pending changes would miss those of writers not committed yet).
  update public.profiles p set
    followers_count = p.followers_count + c.followers, following_count = p.following_count + c.following,
    posts_count = p.posts_count + c.posts
  from (
    select p2.id,
      coalesce(fr.n, 0)::integer - p2.followers_count - coalesce(pfr.delta, 0) as followers,
      coalesce(fg.n, 0)::integer - p2.following_count - coalesce(pfg.delta, 0) as following,
      coalesce(po.n, 0)::integer - p2.posts_count as posts
    from public.profiles p2
    left join (select f.followee_id as id, count(*) as n from public.follows f where f.status = 'accepted' group by 1) fr
      on fr.id = p2.id
    left join (select f.follower_id as id, count(*) as n from public.follows f where f.status = 'accepted' group by 1) fg
      on fg.id = p2.id
    left join (select x.author_id as id, count(*) as n from public.posts x group by 1) po on po.id = p2.id
    left join private.pending_totals pfr on pfr.counter = 'followers' and pfr.target_id = p2.id
    left join private.pending_totals pfg on pfg.counter = 'following' and pfg.target_id = p2.id
  ) c
  where c.id = p.id and (c.followers, c.following, c.posts) <> (0, 0, 0);
  get diagnostics v_rows = row_count;
  v_fixed := v_fixed + v_rows;

  update public.posts p set likes_count = p.likes_count + c.likes, comments_count = p.comments_count + c.comments
  from (
    select p2.id,
      coalesce(l.n, 0)::integer - p2.likes_count - coalesce(pl.delta, 0) as likes,
      coalesce(x.n, 0)::integer - p2.comments_count - coalesce(pc.delta, 0) as comments
    from public.posts p2
    left join (select l.post_id as id, count(*) as n from public.post_likes l group by 1) l on l.id = p2.id
    left join (select x.post_id as id, count(*) as n from public.comments x group by 1) x on x.id = p2.id
    left join private.pending_totals pl on pl.counter = 'post_likes' and pl.target_id = p2.id
    left join private.pending_totals pc on pc.counter = 'post_comments' and pc.target_id = p2.id
  ) c
  where c.id = p.id and (c.likes, c.comments) <> (0, 0);
  get diagnostics v_rows = row_count;
  v_fixed := v_fixed + v_rows;

  update public.comments p set likes_count = p.likes_count + c.likes, replies_count = p.replies_count + c.replies
  from (
    select c2.id,
      coalesce(l.n, 0)::integer - c2.likes_count - coalesce(pl.delta, 0) as likes,
      coalesce(r.n, 0)::integer - c2.replies_count as replies
    from public.comments c2
    left join (select l.comment_id as id, count(*) as n from public.comment_likes l group by 1) l on l.id = c2.id
    left join (select r.parent_id as id, count(*) as n from public.comments r where r.parent_id is not null group by 1) r
      on r.id = c2.id
    left join private.pending_totals pl on pl.counter = 'comment_likes' and pl.target_id = c2.id
  ) c
  where c.id = p.id and (c.likes, c.replies) <> (0, 0);
  get diagnostics v_rows = row_count;
  perform set_config('private.recounting', 'off', true);
  return v_fixed + v_rows;
end;
$$;
revoke execute on function private.recount_counters() from public;
grant execute on function private.recount_counters() to service_role;
comment on function private.recount_counters() is 'Recomputes every counter from the rows; returns the number of rows corrected.';
