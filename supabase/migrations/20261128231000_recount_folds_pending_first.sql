-- The recount folds pending counter changes in first, so a counter behind only by them is not counted as corrected.
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
  -- What was pending is folded in first: a counter behind by its pending changes is not one to correct. The
  -- counters refuse any other writer (private.refuse_counter_edit). Then the rows are counted afresh: whatever is
  -- still pending (its row busy this instant) is in them.
  perform private.fold_pending_counts();
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
