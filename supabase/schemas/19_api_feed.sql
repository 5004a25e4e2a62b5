-- The newest posts of the given authors that the caller may see, below (p_before_at, p_before_id), above
-- (p_after_at, p_after_id), of one day when p_day is given: at most p_limit, newest first. Each author's newest
-- posts come from posts_author_idx (posts_author_day_idx for a day), read from the index alone, and are merged
-- by time: the cost grows with the number of authors, not with the table. Security definer, so that no policy
-- runs on each entry read; only the merged batch is checked, one post at a time, by the posts policy's rule
-- (private.may_see_post). When too many are hidden, the next batch starts below the last one read (ten at most).
create function private.visible_posts_by(p_authors uuid[], p_day date, p_before_at timestamptz, p_before_id uuid,
  p_after_at timestamptz, p_after_id uuid, p_limit integer)
returns table (id uuid, created_at timestamptz)
language plpgsql
stable
security definer
rows 100
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  v_me constant uuid := private.uid();
  -- A batch costs a probe per author whatever its size: twice the page, so that a few hidden posts do not cost
  -- a second one.
  v_batch_size constant integer := least(2 * p_limit, 200);
  v_ids uuid[] := '{}';
  v_ats timestamptz[] := '{}';
  v_batch record;
begin
  for v_round in 1 .. 10 loop
    select coalesce(array_agg(c.id order by c.created_at desc, c.id desc), '{}') as ids,
      coalesce(array_agg(c.created_at order by c.created_at desc, c.id desc), '{}') as ats, count(*)::integer as found
    into v_batch
    from (select p.id, p.created_at
          from unnest(p_authors) a(id)
          cross join lateral (select p.id, p.created_at from public.posts p
                              where p.author_id = a.id and (p_day is null or p.day = p_day)
                                and (p.created_at, p.id) < (p_before_at, p_before_id)
                                and (p.created_at, p.id) > (p_after_at, p_after_id)
                              order by p.created_at desc, p.id desc
                              limit v_batch_size) p
          order by p.created_at desc, p.id desc
          limit v_batch_size) c;
    -- Checked in time order, only until the page is full.
    select v_ids || coalesce(array_agg(v.id order by v.ord), '{}'), v_ats || coalesce(array_agg(v.created_at order by v.ord), '{}')
    into v_ids, v_ats
    from (select p.id, p.created_at, c.ord
          from unnest(v_batch.ids) with ordinality c(id, ord)
          join public.posts p on p.id = c.id
          where private.may_see_post(p, v_me)
          order by c.ord
          limit p_limit - cardinality(v_ids)) v;
    exit when v_batch.found < v_batch_size or cardinality(v_ids) >= p_limit;
    p_before_at := v_batch.ats[v_batch.found];
    p_before_id := v_batch.ids[v_batch.found];
  end loop;
  return query select v.id, v.created_at from unnest(v_ids, v_ats) v(id, created_at);
end;
$$;
revoke execute on function private.visible_posts_by(uuid[], date, timestamptz, uuid, timestamptz, uuid, integer) from public;
grant execute on function private.visible_posts_by(uuid[], date, timestamptz, uuid, timestamptz, uuid, integer)
  to authenticated, service_role;
comment on function private.visible_posts_by(uuid[], date, timestamptz, uuid, timestamptz, uuid, integer) is
  'Ids and times of the newest posts of these authors the caller may see, between two points in time order (of one day when p_day is given).';

-- The share of all posts written by the caller and the accounts they follow, estimated from their stored
-- counters (the followed accounts' mean over a sample of 100, times following_count) and the table's estimated
-- size: what tells the feed whether walking every post by time finds a page sooner than asking each followed
-- account for its newest. Security definer: the counts of accounts the caller follows, summed.
create function private.followed_posts_share()
returns double precision
language sql
stable
security definer
set search_path = ''
begin atomic
  select (coalesce((select avg(p.posts_count)
                    from (select f.followee_id from public.follows f
                          where f.follower_id = private.uid() and f.status = 'accepted' limit 100) f
                    join public.profiles p on p.id = f.followee_id), 0) * me.following_count + me.posts_count)
         / greatest((select c.reltuples from pg_catalog.pg_class c where c.oid = 'public.posts'::regclass), 1)
  from public.profiles me
  where me.id = private.uid();
end;
revoke execute on function private.followed_posts_share() from public;
grant execute on function private.followed_posts_share() to authenticated, service_role;
comment on function private.followed_posts_share() is
  'The share of all posts written by the caller and the accounts they follow (an estimate, for choosing the feed''s plan).';

-- API: the home feed, the posts of the accounts the caller follows (but mutes not) and the caller's own, newest first.
-- Which of them the caller may see is the posts policy's answer, as everywhere.
--
-- The plan. The authors are known before the query (the caller's follows, computed once), and
-- `author_id = any (<array>)` is leakproof, so it is checked before the policy:
--   * following a few accounts (up to 100): the planner sees the array (plan_cache_mode = force_custom_plan:
--     a generic plan, built for an unknown array, would fix one choice for the session) and picks between
--     posts_author_idx (posts_author_day_idx for one day), fetching those authors' posts below the cursor and
--     sorting them, and walking posts_created_idx;
--   * following more, either of two, chosen here from the share of all posts the followed accounts wrote:
--     - walking posts_created_idx newest first, each entry tested against the array, until the page is full:
--       about (page) ÷ (share) entries. The planner cannot be left to choose this: the policy's per-row cost
--       makes every row of the walk look expensive, so from a page of ~100 it would fetch and check every
--       post of the thousand authors before sorting (45 ms instead of 18 ms at 100k accounts and 1M posts).
--       Written `(… = any (…)) is true`, the test is the same but no index can serve it, which leaves the
--       walk; the CASE is decided when the query is planned, since v_walk is a constant of the custom plan;
--     - asking each followed account for its newest posts (private.visible_posts_by), when that costs less:
--       one probe costs about what 8 posts of the walk do (measured at 10 M posts: 1,022 probes in 8.9 ms, the
--       walk about 1.2 µs a post read). The walk grows with the table, the probes with the follows.
-- With a day, the created_at window around it (the day in any time zone, UTC-12 to UTC+14) lets the walk
-- start at that day instead of today.
create function public.feed(p_day date default null, p_cursor text default null, p_limit integer default null,
  p_newer_than text default null)
returns jsonb
language plpgsql
stable
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  v_me uuid := private.require_uid();
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_cursor(p_cursor);
  v_newer record := private.decode_newer_than(p_newer_than);
  -- Muted accounts' posts leave the feed (28_mutes.sql), whoever else sees them.
  v_authors uuid[] := array(select private.accounts_i_follow() except select private.accounts_i_mute()) || v_me;
  v_walk boolean := cardinality(v_authors) > 100;
  v_probe boolean := v_walk and cardinality(v_authors) * 8 < (v_limit + 1) / greatest(private.followed_posts_share(), 1e-9);
  v_probed uuid[];
  v_rows jsonb;
begin
  if v_probe then
    v_probed := array(select v.id from private.visible_posts_by(v_authors, p_day, v_after.at, v_after.id, v_newer.at,
                                                                 v_newer.id, v_limit + 1) v);
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('at', x.created_at, 'id', x.id, 'item', x.item)
         order by x.created_at desc, x.id desc), '[]'::jsonb)
  into v_rows
  from (
    select i.created_at, i.id, i.item from private.post_items i
    where case when v_probe then i.id = any (v_probed)
               when v_walk then (i.author_id = any (v_authors)) is true
               else i.author_id = any (v_authors) end
      and (i.created_at, i.id) < (v_after.at, v_after.id) and (i.created_at, i.id) > (v_newer.at, v_newer.id)
      and (p_day is null
        or i.day = p_day
           and i.created_at >= p_day::timestamp at time zone 'UTC' - interval '14 hours'
           and i.created_at < (p_day + 1)::timestamp at time zone 'UTC' + interval '12 hours')
    order by i.created_at desc, i.id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.feed(date, text, integer, text) from public;
grant execute on function public.feed(date, text, integer, text) to authenticated, service_role;
comment on function public.feed(date, text, integer, text) is
  'The caller''s home feed: posts they may see by the accounts they follow (but mute not) and their own, newest first (of one day when p_day is given; newer than p_newer_than when given).';
