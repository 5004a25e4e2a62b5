-- API: search accounts (by username and display name: prefix, then likeness) and posts (full text), ranked,
-- by pages, showing only what the caller may see.
--
-- The text searched for is data, never a pattern: for accounts it is escaped before LIKE and compared by
-- trigrams, for posts it becomes a query of its words (plainto_tsquery), so %, _, regex characters, quotes and
-- tsquery operators are plain characters.
--
-- Why the matching runs past RLS: LIKE, trigram likeness and text search are not leakproof, so under row-level
-- security they could only filter rows the policy has already checked, one by one (the whole table); their
-- GIN indexes would go unused. So security definer functions find the matching ids and their ranks with the
-- index and keep only those the caller may see (the visibility rules of 08_visibility.sql), and the API
-- function reads them back through the item views, under the policies of profiles and posts. A finder that
-- could answer with a hidden row is not executable by the API roles: called directly, the others answer only
-- what the caller may see, so they tell nobody that a hidden post holds a word.
--
-- Pages: keyset on (rank desc, id desc), the cursor naming the last row's (rank, id). The matches are ranked
-- and sorted on every page (a text search has no index in rank order); then the page reads them in that order
-- through the item view and stops at its limit (`offset 0` keeps the sort before the join, so only the rows
-- read are checked against the policies). The matches are bounded (at most 600 accounts, 1,000 posts), and so
-- is the work of finding them, whatever others cannot see: account finders skip accounts never confirmed or
-- banned; posts come from two finders, neither of which reads a post hidden by its own privacy or ban. Public
-- posts are read newest first from indexes that hold only those, at most 2,000 matches, kept to what the
-- caller may see; the caller's other posts, and the close-friends posts of those who count the caller a close
-- friend, are found by author and word at once. So a flood of private or close-friends posts costs a search
-- nothing and hides nothing; what it may still hide is bounded and documented (docs/DATABASE.md, "Search").

-- The text to search for, trimmed: 2 to 100 characters.
create function private.search_text(p_q text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_q text := btrim(coalesce(p_q, ''));
begin
  if char_length(v_q) < 2 then
    perform private.fail(400, 'search_too_short', 'Search for at least 2 characters');
  end if;
  if char_length(v_q) > 100 then
    perform private.fail(400, 'search_too_long', 'Search for at most 100 characters');
  end if;
  return v_q;
end;
$$;
revoke execute on function private.search_text(text) from public;
grant execute on function private.search_text(text) to anon, authenticated, service_role;
comment on function private.search_text(text) is 'The search text trimmed; 400 unless 2 to 100 characters.';

-- Accounts like the text, at most 200 found each way, so that the cost stays flat however many names match
-- (a common first name, or two characters, match thousands):
--   * usernames starting with it, the shortest first ("ann" before "anna" before "annabel"): each length is
--     one range of profiles_username_prefix_idx, read in order until 200 are found;
--   * display names starting with it, in any case, the shortest first (profiles_display_name_prefix_idx);
--   * when those two find fewer than 200 together: names holding a word like it (pg_trgm word similarity, at
--     least pg_trgm.word_similarity_threshold; GIN trigram indexes), up to 200.
-- Ranked: a username prefix 2 + the share of the name the text covers (the shorter name, the closer), a
-- display-name prefix 1 + that share, any other match its word likeness (0 to 1). Only accounts the caller
-- may see: the finders skip accounts never confirmed or banned (nobody but themselves and admins sees them, and
-- they find what anybody finds), and the answer drops the accounts with a block either way.
create function private.account_matches(p_q text)
returns table (id uuid, rank real)
language plpgsql
stable
security definer
rows 200
set search_path = ''
as $$
declare
  v_lower text := lower(p_q);
  v_prefix text := replace(replace(replace(v_lower, '\', '\\'), '%', '\%'), '_', '\_') || '%';
  -- Names starting with v_lower lie from v_lower up to it followed by the greatest character (byte order).
  v_after text := v_lower || chr(1114111);
  v_names uuid[] := '{}';
  v_display uuid[] := '{}';
  v_alike uuid[] := '{}';
begin
  for v_length in char_length(v_lower) .. 30 loop
    v_names := v_names || array(
      select p.id from public.profiles p
      where char_length(p.username) = v_length
        and (p.username collate "C") >= v_lower and (p.username collate "C") < v_after
        and p.confirmed_at is not null and p.banned_at is null
      order by (p.username collate "C")
      limit 200 - cardinality(v_names));
    exit when cardinality(v_names) >= 200;
  end loop;
  for v_length in char_length(v_lower) .. 50 loop
    v_display := v_display || array(
      select p.id from public.profiles p
      where char_length(p.display_name) = v_length
        and (lower(p.display_name) collate "C") >= v_lower and (lower(p.display_name) collate "C") < v_after
        and p.confirmed_at is not null and p.banned_at is null
      order by (lower(p.display_name) collate "C")
      limit 200 - cardinality(v_display));
    exit when cardinality(v_display) >= 200;
  end loop;
  if cardinality(v_names) + cardinality(v_display) < 200 then
    v_alike := array(
      select p.id from public.profiles p
      where (p_q operator(extensions.<%) p.username or p_q operator(extensions.<%) p.display_name)
        and p.confirmed_at is not null and p.banned_at is null
      limit 200);
  end if;
  return query
    select p.id,
      (case when p.username like v_prefix then 2 + char_length(v_lower)::real / char_length(p.username)
            when lower(p.display_name) like v_prefix then 1 + char_length(v_lower)::real / char_length(p.display_name)
            else greatest(extensions.word_similarity(p_q, p.username), extensions.word_similarity(p_q, p.display_name))
       end)::real
    from public.profiles p
    where p.id = any (v_names || v_display || v_alike)
      and p.id not in (select private.accounts_blocked_either_way());
end;
$$;
revoke execute on function private.account_matches(text) from public;
grant execute on function private.account_matches(text) to anon, authenticated, service_role;
comment on function private.account_matches(text) is
  'Ids and ranks of up to 200 confirmed, unbanned accounts whose username starts with the text, 200 whose display name does, and (when those are fewer than 200) 200 whose names resemble it, less those with a block either way with the caller.';

-- The share of posts whose body holds every word of the text, as the planner's statistics of body_search
-- estimate it: that of its rarest word, 0 for a word missing from the most common ones (or before the table
-- was first analyzed).
create function private.posts_share_with_words(p_q text)
returns real
language sql
stable
set search_path = ''
begin atomic
  select coalesce(min(coalesce(f.freq, 0)), 0)
  from unnest(tsvector_to_array(to_tsvector('simple', p_q))) w(word)
  left join (select e.word, e.freq
             from pg_catalog.pg_stats s,
               unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) e(word, freq)
             where s.schemaname = 'public' and s.tablename = 'posts' and s.attname = 'body_search') f
    on f.word = w.word;
end;
revoke execute on function private.posts_share_with_words(text) from public;
comment on function private.posts_share_with_words(text) is
  'The estimated share of posts whose body holds every word of the text (the statistics of its rarest word).';

-- Public, unbanned posts whose body holds every word of the text, newest first below (p_before_at,
-- p_before_id): a batch of at most p_limit, with their ts_rank. Two ways, chosen by how common the text's rarest
-- word is (the planner's statistics of body_search; a word missing from its most common ones is rare):
--   * rare (under 1 % of posts): posts_body_search_idx, a RUM index of the public posts that keeps each entry's
--     created_at, gives the matches newest first without reading the others (`<=|`: the distance back from the
--     point), all those at the batch's last instant included (WITH TIES) so that the next batch starts exactly
--     below it;
--   * common: walking posts_public_created_idx newest first, each post tested, finds a batch within about
--     (batch) ÷ (share) posts, where the index would collect every match before ordering them (a word in
--     every post: seconds). Written `(… @@ …) is true`, no index can serve the test, which leaves the walk. The
--     walk stops after 50 posts per match wanted; a word common among all posts but not among public ones
--     (hidden posts holding it) then falls back to the index.
-- Both read public posts only: a private or close-friends post, or a banned one, is never read here.
-- Posts the caller may not see are among them (a private account's, a blocker's): only
-- private.visible_post_matches may call it (the API roles may not).
create function private.post_matches(p_q text, p_before_at timestamptz, p_before_id uuid, p_limit integer)
returns table (id uuid, created_at timestamptz, rank real)
language plpgsql
stable
security definer
rows 1000
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
declare
  v_query tsquery := plainto_tsquery('simple', p_q);
  v_limit integer := least(p_limit, 1000);
  -- The point the RUM index measures back from: a finite one (from infinity every distance is infinite, so
  -- every match would tie). Posts are never dated after now.
  v_from timestamptz := least(p_before_at, now() + interval '1 day');
  v_walked record;
begin
  if private.posts_share_with_words(p_q) >= 0.01 then
    -- The walk reads at most 50 posts per match wanted: a word common among all posts but rare among public ones
    -- (hidden posts holding it) would otherwise walk every public post. Short of the batch there, the index.
    select coalesce(array_agg(m.id order by m.created_at desc, m.id desc), '{}') as ids,
      coalesce(array_agg(m.created_at order by m.created_at desc, m.id desc), '{}') as ats,
      coalesce(array_agg(ts_rank(m.body_search, v_query) order by m.created_at desc, m.id desc), '{}') as ranks
    into v_walked
    from (select w.id, w.created_at, w.body_search
          from (select p.id, p.created_at, p.body_search from public.posts p
                where p.privacy = 'public' and p.banned_at is null and (p.created_at, p.id) < (p_before_at, p_before_id)
                order by p.created_at desc, p.id desc
                limit v_limit * 50) w
          where (w.body_search @@ v_query) is true
          order by w.created_at desc, w.id desc
          limit v_limit) m;
    if cardinality(v_walked.ids) = v_limit then
      return query select u.id, u.created_at, u.rank from unnest(v_walked.ids, v_walked.ats, v_walked.ranks) u(id, created_at, rank);
      return;
    end if;
  end if;
  return query
    select m.id, m.created_at, ts_rank(m.body_search, v_query)
    from (select p.id, p.created_at, p.body_search
          from public.posts p
          where p.privacy = 'public' and p.banned_at is null
            and p.body_search @@ v_query and ((p.created_at, p.id) < (p_before_at, p_before_id)) is true
          order by p.created_at operator(extensions.<=|) v_from
          fetch first v_limit rows with ties) m
    order by m.created_at desc, m.id desc
    limit v_limit;
end;
$$;
revoke execute on function private.post_matches(text, timestamptz, uuid, integer) from public;
comment on function private.post_matches(text, timestamptz, uuid, integer) is
  'Ids, times and ranks of a batch of the newest public, unbanned posts below a point whose body holds every word of the text, visible to the caller or not (read them through RLS).';

-- The posts that are not public and that the caller may see, whose body holds every word of the text: the
-- 1,000 newest of the caller's own, and of the close-friends posts of those who count the caller a close friend.
-- Found by author and word at once (posts_circle_search_idx): nobody else's private or close-friends post is
-- read, however many hold the word.
create function private.circle_post_matches(p_q text)
returns table (id uuid, created_at timestamptz, rank real)
language plpgsql
stable
security definer
rows 100
set search_path = ''
as $$
declare
  v_me constant uuid := private.uid();
  v_query tsquery := plainto_tsquery('simple', p_q);
begin
  if v_me is null then
    return;
  end if;
  return query
    select p.id, p.created_at, ts_rank(p.body_search, v_query)
    from public.posts p
    where p.author_id = any (array(select c.owner_id from public.close_friends c where c.friend_id = v_me) || v_me)
      and p.body_search @@ v_query and p.privacy <> 'public'
      and private.may_see_post(p, v_me)
    order by p.created_at desc, p.id desc
    limit 1000;
end;
$$;
revoke execute on function private.circle_post_matches(text) from public;
comment on function private.circle_post_matches(text) is
  'Ids, times and ranks of the 1,000 newest posts, not public, of the caller and of those who count the caller a close friend, that the caller may see and whose body holds every word of the text.';

-- The 1,000 newest posts holding every word of the text that the caller may see, with their ranks. Public
-- ones: batches of public matches, newest first, each kept to what the caller may see (private.may_see_post,
-- the posts policy one row at a time), until 1,000 are found, the matches end, or 2,000 were read (so a flood
-- of public posts hidden from the caller costs at most two batches, and may hide older matches past them).
-- After the first batch of 1,000, the second asks for what is still missing at the share of matches the caller
-- could see (a tenth at least), so a search that lacks a few reads a few more, not another thousand. Then the
-- others the caller may see (private.circle_post_matches), and the 1,000 newest of both.
create function private.visible_post_matches(p_q text)
returns table (id uuid, rank real)
language plpgsql
stable
security definer
rows 1000
set search_path = ''
as $$
declare
  v_me constant uuid := private.uid();
  v_wanted constant integer := 1000;
  v_budget constant integer := 2000;
  v_size integer := v_wanted;
  v_read integer := 0;
  v_ids uuid[] := '{}';
  v_ranks real[] := '{}';
  v_ats timestamptz[] := '{}';
  v_batch record;
  v_before_at timestamptz := 'infinity';
  v_before_id uuid := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
begin
  loop
    select coalesce(array_agg(m.id order by m.created_at desc, m.id desc), '{}') as ids,
      coalesce(array_agg(m.rank order by m.created_at desc, m.id desc), '{}') as ranks,
      coalesce(array_agg(m.created_at order by m.created_at desc, m.id desc), '{}') as ats, count(*)::integer as found
    into v_batch
    from private.post_matches(p_q, v_before_at, v_before_id, v_size) m;
    select v_ids || coalesce(array_agg(c.id order by c.ord), '{}'), v_ranks || coalesce(array_agg(c.rank order by c.ord), '{}'),
      v_ats || coalesce(array_agg(c.at order by c.ord), '{}')
    into v_ids, v_ranks, v_ats
    from (select m.id, m.rank, m.at, m.ord
          from unnest(v_batch.ids, v_batch.ranks, v_batch.ats) with ordinality m(id, rank, at, ord)
          join public.posts p on p.id = m.id
          where private.may_see_post(p, v_me)
          order by m.ord
          limit v_wanted - cardinality(v_ids)) c;
    v_read := v_read + v_batch.found;
    exit when v_batch.found < v_size or cardinality(v_ids) >= v_wanted or v_read >= v_budget;
    v_before_at := v_batch.ats[v_batch.found];
    v_before_id := v_batch.ids[v_batch.found];
    v_size := least(v_wanted, v_budget - v_read,
      ceil((v_wanted - cardinality(v_ids)) * v_read / greatest(cardinality(v_ids), v_read / 10.0))::integer);
  end loop;
  return query
    select m.id, m.rank
    from (select u.id, u.rank, u.at from unnest(v_ids, v_ranks, v_ats) u(id, rank, at)
          union all
          select c.id, c.rank, c.created_at from private.circle_post_matches(p_q) c) m
    order by m.at desc, m.id desc
    limit v_wanted;
end;
$$;
revoke execute on function private.visible_post_matches(text) from public;
grant execute on function private.visible_post_matches(text) to anon, authenticated, service_role;
comment on function private.visible_post_matches(text) is
  'Ids and ranks of the 1,000 newest posts the caller may see whose body holds every word of the text (public ones among the 2,000 newest public matches).';

-- p_type 'users': profiles as GET /:username shows them; 'posts': posts as every list shows them, less those of
-- accounts the caller mutes (28_mutes.sql; a muted account itself is still found). The matches
-- of the one type asked for (the other branch of each union is dropped at once), read back through its item
-- view, in rank order until the page is full.
create function public.search(p_q text, p_type text, p_cursor text default null, p_limit integer default null)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_q text := private.search_text(p_q);
  v_limit integer := private.page_limit(p_limit);
  v_after record := private.decode_rank_cursor(p_cursor);
  v_muted uuid[] := array(select private.accounts_i_mute());
  v_rows jsonb;
begin
  if p_type is distinct from 'users' and p_type is distinct from 'posts' then
    perform private.fail(400, 'invalid_search_type', 'Search for users or posts');
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('rank', x.rank, 'id', x.id, 'item', x.item)
         order by x.rank desc, x.id desc), '[]'::jsonb)
  into v_rows
  from (
    select m.rank, m.id, i.item
    from (select m.rank, m.id
          from (select a.rank, a.id from private.account_matches(v_q) a where p_type = 'users'
                union all
                select p.rank, p.id from private.visible_post_matches(v_q) p where p_type = 'posts') m
          where (m.rank, m.id) < (v_after.rank, v_after.id)
          order by m.rank desc, m.id desc offset 0) m
    cross join lateral (select u.item from private.profile_items u where p_type = 'users' and u.id = m.id
                        union all
                        select p.item from private.post_items p
                        where p_type = 'posts' and p.id = m.id and p.author_id <> all (v_muted)) i
    order by m.rank desc, m.id desc
    limit v_limit + 1
  ) x;
  return private.to_page(v_rows, v_limit);
end;
$$;
revoke execute on function public.search(text, text, text, integer) from public;
grant execute on function public.search(text, text, text, integer) to anon, authenticated, service_role;
comment on function public.search(text, text, text, integer) is
  'Search users (p_type users: by username and display name) or posts (p_type posts: every word of the text, among the 1,000 newest such the caller may see), best first; only what the caller may see.';
