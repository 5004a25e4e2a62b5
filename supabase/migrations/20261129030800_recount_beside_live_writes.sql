-- Issue 55: private.recount_counters() adds to each counter what its rows, its column and its pending changes
-- disagree by in one snapshot, instead of dropping the pending changes and writing absolute counts: run beside
-- live writes, it no longer counts a write in flight twice (a pending change of a writer not committed yet) or
-- not at all (the change of a writer holding the row).
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
