-- Whom the feed asks, and in what order. One row per accepted follow, with an upper bound of the time of the
-- followed account's newest post: raised as each post is written, never lowered (a deleted or hidden post leaves
-- it high, which costs the feed one needless probe, never a missed post). The feed asks the accounts with the
-- highest bounds first and stops once no later one can hold a newer post, so a page costs about as many probes
-- as it holds posts however many accounts the reader follows. An account with more than 1,000 followers when it
-- is followed gets `infinity` ("always ask"): its posts then do not rewrite a row per follower (a post rewrites
-- at most the rows of the followers it had before it passed 1,000).
create table private.feed_sources (
  follower_id uuid not null,
  followee_id uuid not null,
  newest_post_at timestamptz not null,
  primary key (follower_id, followee_id),
  foreign key (follower_id, followee_id) references public.follows (follower_id, followee_id)
    on delete cascade on update cascade
);
alter table private.feed_sources enable row level security;
-- The feed reads a reader's rows by bound, newest first; a new post raises its author's lower bounds.
create index feed_sources_reader_idx on private.feed_sources (follower_id, newest_post_at desc, followee_id);
create index feed_sources_author_idx on private.feed_sources (followee_id, newest_post_at);

comment on table private.feed_sources is
  'The accounts each reader''s feed asks (their accepted follows), with an upper bound of each one''s newest post (kept by triggers).';
comment on column private.feed_sources.newest_post_at is
  'No earlier than the followed account''s newest post (-infinity before its first; infinity: an account asked always).';

-- The bound a new follow starts with, from the followed account's followers_count and newest post (null before
-- its first). A function of values, so that a bulk load computes it set-based too.
create function private.feed_source_bound(p_followers_count integer, p_newest_post_at timestamptz)
returns timestamptz
language sql
immutable
set search_path = ''
as $$
  select case when p_followers_count > 1000 then 'infinity' else coalesce(p_newest_post_at, '-infinity') end
$$;
revoke execute on function private.feed_source_bound(integer, timestamptz) from public;
comment on function private.feed_source_bound(integer, timestamptz) is
  'The feed_sources bound of a new follow of an account: its newest post''s time, or infinity past 1,000 followers.';

create function private.sync_feed_source()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if new.status = 'accepted' then
    insert into private.feed_sources (follower_id, followee_id, newest_post_at)
    values (new.follower_id, new.followee_id, private.feed_source_bound(
      (select p.followers_count from public.profiles p where p.id = new.followee_id),
      (select max(p.created_at) from public.posts p where p.author_id = new.followee_id)))
    on conflict do nothing;
  else
    delete from private.feed_sources s where s.follower_id = new.follower_id and s.followee_id = new.followee_id;
  end if;
  return null;
end;
$$;
revoke execute on function private.sync_feed_source() from public;
comment on function private.sync_feed_source() is 'Trigger: a follow is a feed source while it is accepted.';

create trigger sync_feed_source
after insert or update of status on public.follows
for each row execute function private.sync_feed_source();

create function private.raise_feed_sources()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update private.feed_sources s set newest_post_at = new.created_at
  where s.followee_id = new.author_id and s.newest_post_at < new.created_at;
  return null;
end;
$$;
revoke execute on function private.raise_feed_sources() from public;
comment on function private.raise_feed_sources() is 'Trigger: raises the feed_sources bounds of a post''s author to the post''s time.';

-- After insert only: a post's author and time never change (private.stamp_post).
create trigger raise_feed_sources
after insert on public.posts
for each row execute function private.raise_feed_sources();

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

-- The ids and times of a page of the caller's feed: the newest posts they may see by the accounts they follow
-- (but mute not) and by themselves, between two points in time order (of one day when p_day is given), at most
-- p_limit. The accounts are asked in the order of their feed_sources bounds, highest first (the caller's own
-- posts always), in batches that double from twice the page's size; the asking stops once the page is full and its
-- last post is newer than the next account's bound, or that bound is older than the oldest post wanted. A
-- full page's last post is also the floor of the next batch's probes. Security definer: feed_sources is not
-- the caller's to read; only the caller's own rows are.
create function private.feed_page_posts(p_day date, p_before_at timestamptz, p_before_id uuid, p_after_at timestamptz,
  p_after_id uuid, p_limit integer)
returns table (id uuid, created_at timestamptz)
language plpgsql
stable
security definer
rows 100
set search_path = ''
as $$
declare
  v_me constant uuid := private.uid();
  -- A post of one day lies in its window of created_at (the day in any time zone, UTC-12 to UTC+14).
  v_oldest constant timestamptz := case when p_day is null then p_after_at
    else greatest(p_after_at, p_day::timestamp at time zone 'UTC' - interval '14 hours') end;
  v_authors uuid[];
  v_bounds timestamptz[];
  v_ids uuid[] := '{}';
  v_ats timestamptz[] := '{}';
  v_floor_at timestamptz := p_after_at;
  v_floor_id uuid := p_after_id;
  v_from integer := 1;
  -- Twice the page first, so that a few hidden posts among the newest do not cost a second batch.
  v_size integer := 2 * p_limit;
  v_next timestamptz;
begin
  select array_agg(s.followee_id order by s.newest_post_at desc, s.followee_id),
    array_agg(s.newest_post_at order by s.newest_post_at desc, s.followee_id)
  into v_authors, v_bounds
  from (select v_me as followee_id, 'infinity'::timestamptz as newest_post_at
        union all
        select f.followee_id, f.newest_post_at from private.feed_sources f
        where f.follower_id = v_me
          and f.followee_id not in (select private.accounts_i_mute())) s;
  while v_from <= cardinality(v_authors) loop
    -- The newest post any account left to ask may hold below the page's upper end.
    v_next := least(v_bounds[v_from], p_before_at);
    exit when v_next < v_oldest or (cardinality(v_ids) = p_limit and v_ats[p_limit] > v_next);
    select coalesce(array_agg(m.id order by m.created_at desc, m.id desc), '{}'),
      coalesce(array_agg(m.created_at order by m.created_at desc, m.id desc), '{}')
    into v_ids, v_ats
    from (select u.id, u.created_at from unnest(v_ids, v_ats) u(id, created_at)
          union all
          select v.id, v.created_at
          from private.visible_posts_by(v_authors[v_from : v_from + v_size - 1], p_day, p_before_at, p_before_id,
                                        v_floor_at, v_floor_id, p_limit) v
          order by 2 desc, 1 desc
          limit p_limit) m;
    if cardinality(v_ids) = p_limit then
      v_floor_at := v_ats[p_limit];
      v_floor_id := v_ids[p_limit];
    end if;
    v_from := v_from + v_size;
    v_size := v_size * 2;
  end loop;
  return query select u.id, u.created_at from unnest(v_ids, v_ats) u(id, created_at);
end;
$$;
revoke execute on function private.feed_page_posts(date, timestamptz, uuid, timestamptz, uuid, integer) from public;
grant execute on function private.feed_page_posts(date, timestamptz, uuid, timestamptz, uuid, integer)
  to authenticated, service_role;
comment on function private.feed_page_posts(date, timestamptz, uuid, timestamptz, uuid, integer) is
  'Ids and times of the newest posts the caller may see by the accounts they follow (but mute not) and their own, between two points in time order.';

-- API: the home feed, the posts of the accounts the caller follows (but mutes not) and the caller's own, newest
-- first. Which of them the caller may see is the posts policy's answer, as everywhere: private.feed_page_posts
-- picks the page's posts by the policy's one-row rule, and the page's items are read through the policy again.
create function public.feed(p_day date default null, p_cursor text default null, p_limit integer default null,
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
  v_page uuid[];
  v_rows jsonb;
begin
  v_page := array(select p.id from private.feed_page_posts(p_day, v_after.at, v_after.id, v_newer.at, v_newer.id, v_limit + 1) p);
  select coalesce(jsonb_agg(jsonb_build_object('at', i.created_at, 'id', i.id, 'item', i.item)
         order by i.created_at desc, i.id desc), '[]'::jsonb)
  into v_rows
  from private.post_items i
  where i.id = any (v_page);
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.feed(date, text, integer, text) from public;
grant execute on function public.feed(date, text, integer, text) to authenticated, service_role;
comment on function public.feed(date, text, integer, text) is
  'The caller''s home feed: posts they may see by the accounts they follow (but mute not) and their own, newest first (of one day when p_day is given; newer than p_newer_than when given).';
