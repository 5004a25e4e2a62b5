-- A small living network for a newcomer's `npm start`: applied to a fresh database (the first start, and
-- the first after `npm run reset`), never to the tests' stack nor to a hosted project. Every account signs in
-- with the password `daykeeper demo`; `npm start` lists them. The accounts are made the way Supabase's seeding
-- guide makes them: rows in auth.users and auth.identities that Supabase Auth signs in with (bcrypt password,
-- confirmed e-mail, empty token columns); the sign-up trigger makes each profile from the user metadata.

do $$
declare
  v_password text := extensions.crypt('daykeeper demo', extensions.gen_salt('bf'));
  v_person text[];
  v_id uuid;
  v_email text;
begin
  foreach v_person slice 1 in array array[
    ['ana', 'Ana Lima', 'Europe/Lisbon'], ['ben', 'Ben Okafor', 'Africa/Lagos'], ['cleo', 'Cleo Martin', 'Europe/Paris'],
    ['dan', 'Dan Weiss', 'America/New_York'], ['eva', 'Eva Novak', 'Europe/Prague'], ['finn', 'Finn Berg', 'Europe/Oslo'],
    ['gia', 'Gia Rossi', 'Europe/Rome'], ['hugo', 'Hugo Silva', 'America/Sao_Paulo'], ['iris', 'Iris Tan', 'Asia/Singapore'],
    ['jon', 'Jon Park', 'Asia/Seoul'], ['kai', 'Kai Nakamura', 'Asia/Tokyo'], ['troll', 'Not A Troll', 'UTC']
  ] loop
    v_id := gen_random_uuid();
    v_email := v_person[1] || '@demo.daykeeper.test';
    insert into auth.users (
      instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
      raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
      confirmation_token, recovery_token, email_change_token_new, email_change
    ) values (
      '00000000-0000-0000-0000-000000000000', v_id, 'authenticated', 'authenticated', v_email, v_password, now(),
      '{"provider": "email", "providers": ["email"]}',
      jsonb_build_object('username', v_person[1], 'display_name', v_person[2], 'time_zone', v_person[3]),
      now() - interval '10 days', now(), '', '', '', ''
    );
    insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
    values (v_id::text, v_id, jsonb_build_object('sub', v_id::text, 'email', v_email, 'email_verified', true),
            'email', now(), now(), now());
  end loop;
end;
$$;

create function pg_temp.id_of(p_username text) returns uuid language sql stable as $$
  select p.id from public.profiles p where p.username = p_username
$$;

-- Ana moderates; Cleo's account is private; Ben's bio says what he is here for.
insert into private.admins (user_id) values (pg_temp.id_of('ana'));
update public.profiles set is_private = true, bio = 'Friends only.' where username = 'cleo';
update public.profiles set bio = 'One line a day, every day.' where username = 'ben';

-- Follows (towards Cleo, requests: Ben's is accepted, Dan's still pending), close friends, a block.
insert into public.follows (follower_id, followee_id)
select pg_temp.id_of(a), pg_temp.id_of(b) from (values
  ('ben', 'ana'), ('cleo', 'ana'), ('dan', 'ana'), ('eva', 'ana'), ('finn', 'ana'), ('gia', 'ana'),
  ('ana', 'ben'), ('eva', 'ben'), ('iris', 'ben'), ('ana', 'eva'), ('ben', 'eva'), ('jon', 'eva'),
  ('kai', 'jon'), ('jon', 'kai'), ('hugo', 'iris'), ('iris', 'hugo'), ('ben', 'cleo'), ('dan', 'cleo'),
  ('troll', 'ana')
) as f(a, b);
update public.follows set status = 'accepted'
where follower_id = pg_temp.id_of('ben') and followee_id = pg_temp.id_of('cleo');
insert into public.close_friends (owner_id, friend_id)
values (pg_temp.id_of('ana'), pg_temp.id_of('ben')), (pg_temp.id_of('ana'), pg_temp.id_of('eva'));
insert into public.blocks (blocker_id, blocked_id) values (pg_temp.id_of('gia'), pg_temp.id_of('hugo'));

-- Posts over the last week. A post's day is normally its creation's, set by a trigger: here the creation
-- times are in the past, so the trigger steps aside and the day is computed the same way (a product trigger is
-- switched off only when the session says so: private.refuse_trigger_switch).
set private.switching_triggers = 'on';
alter table public.posts disable trigger stamp_post;
insert into public.posts (author_id, body, privacy, emotion, created_at, day)
select pg_temp.id_of(p.author), p.body, p.privacy::public.post_privacy, p.emotion, p.at,
  (p.at at time zone (select time_zone from public.profiles where username = p.author))::date
from (values
  ('ana', 'First coffee on the balcony, the river all gold.', 'public', 80, now() - interval '6 days 3 hours'),
  ('ana', 'Long day. Only telling my close friends: I got the job!', 'close_friends', 95, now() - interval '2 days 5 hours'),
  ('ana', 'Notes to self, nobody else.', 'private', 40, now() - interval '1 day'),
  ('ben', 'Ran 10 km before work.', 'public', 70, now() - interval '5 days 2 hours'),
  ('ben', 'Rain all day; finished a book instead.', 'public', 55, now() - interval '3 hours'),
  ('cleo', 'Sketching at the museum with my sister.', 'public', 75, now() - interval '4 days'),
  ('cleo', 'Moving flats next month.', 'public', 60, now() - interval '1 day 2 hours'),
  ('dan', 'Missed the train, found a great bakery.', 'public', 65, now() - interval '3 days 6 hours'),
  ('eva', 'Pottery class: one bowl survived.', 'public', 85, now() - interval '2 days'),
  ('finn', 'Fjord swim. Cold. Worth it.', 'public', 90, now() - interval '6 hours'),
  ('gia', 'Tomatoes from the garden, finally.', 'public', 80, now() - interval '5 days'),
  ('hugo', 'Samba night with old friends.', 'public', 88, now() - interval '4 days 8 hours'),
  ('iris', 'Hawker centre crawl, part 3.', 'public', 77, now() - interval '1 day 8 hours'),
  ('jon', 'First snow of the year in Seoul.', 'public', 72, now() - interval '2 days 9 hours'),
  ('kai', 'Quiet Sunday, tea and a puzzle.', 'public', 60, now() - interval '6 days'),
  ('troll', 'Everyone here is boring.', 'public', 5, now() - interval '3 days')
) as p(author, body, privacy, emotion, at);
alter table public.posts enable trigger stamp_post;
reset private.switching_triggers;

create function pg_temp.post_of(p_author text, p_start text) returns uuid language sql stable as $$
  select p.id from public.posts p where p.author_id = pg_temp.id_of(p_author) and p.body like p_start || '%'
$$;

-- Comments, a reply, likes.
insert into public.comments (post_id, author_id, body)
select pg_temp.post_of(c.author, c.post), pg_temp.id_of(c.commenter), c.body
from (values
  ('ana', 'First coffee', 'ben', 'That view!'),
  ('ana', 'First coffee', 'eva', 'Jealous of your mornings.'),
  ('ben', 'Ran 10 km', 'ana', 'Show-off :)'),
  ('finn', 'Fjord swim', 'kai', 'Brave.'),
  ('ana', 'First coffee', 'troll', 'Boring.')
) as c(author, post, commenter, body);
insert into public.comments (post_id, parent_id, author_id, body)
select c.post_id, c.id, pg_temp.id_of('ana'), 'Come visit and see it yourself!'
from public.comments c where c.body = 'That view!';
insert into public.post_likes (post_id, user_id)
select pg_temp.post_of(l.author, l.post), pg_temp.id_of(l.liker)
from (values
  ('ana', 'First coffee', 'ben'), ('ana', 'First coffee', 'eva'), ('ana', 'First coffee', 'dan'),
  ('ana', 'Long day', 'ben'), ('ben', 'Ran 10 km', 'ana'), ('eva', 'Pottery', 'ana'), ('eva', 'Pottery', 'jon'),
  ('finn', 'Fjord swim', 'ana'), ('finn', 'Fjord swim', 'kai'), ('jon', 'First snow', 'kai')
) as l(author, post, liker);
insert into public.comment_likes (comment_id, user_id)
select c.id, pg_temp.id_of('ana') from public.comments c where c.body = 'That view!';

-- Eva reported the troll, and Ana (an admin) banned them.
insert into public.reports (reporter_id, target_type, target_user_id, reason)
values (pg_temp.id_of('eva'), 'user', pg_temp.id_of('troll'), 'Rude comments under Ana''s posts.');
insert into public.reports (reporter_id, target_type, target_comment_id, reason)
select pg_temp.id_of('ana'), 'comment', c.id, 'Just here to insult.' from public.comments c where c.body = 'Boring.';
select moderation.ban_user('troll', 'Insults under other people''s posts (demo data).');
