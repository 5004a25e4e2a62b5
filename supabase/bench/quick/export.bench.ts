// `npm run bench -- supabase/bench/quick/export.bench.ts`: GET /user/export of an account with 10,000 posts (and 2,000
// comments, 5,000 likes given, follows both ways with the stack's other accounts, 2,000 notifications), through the gateway,
// read to its end. The target (docs/PRODUCT.md, "Data export"): under 10 s. Prints vitest's table; not a test.
import { bench, describe } from 'vitest';
import { createAccount } from '../../../test/helpers/accounts.ts';
import { asRoot } from '../../../test/helpers/db.ts';
import { authIsRunning, stack } from '../../../test/helpers/stack.ts';

async function seed() {
  const owner = await createAccount('archivist');
  const others = await Promise.all(Array.from({ length: 5 }, () => createAccount('friend')));
  const friendIds = others.map((o) => o.id);
  await asRoot`
    insert into public.posts (author_id, body, media, privacy)
    select ${owner.id}, 'day ' || n || ' of a long journal', case when n % 10 = 0 then array[${owner.id} || '/day' || n || '.jpg'] else '{}' end,
      case when n % 7 = 0 then 'close_friends' else 'public' end::public.post_privacy
    from generate_series(1, 10000) n`;
  // Others' posts to comment on and like, the owner's comments and likes, follows both ways (as rows, past the limits).
  await asRoot`
    insert into public.posts (author_id, body) select f, 'a post to answer ' || n from unnest(${friendIds}::uuid[]) f, generate_series(1, 1000) n`;
  await asRoot`
    insert into public.comments (post_id, author_id, body)
    select p.id, ${owner.id}, 'a comment' from public.posts p where p.author_id = any (${friendIds}::uuid[]) limit 2000`;
  await asRoot`
    insert into public.post_likes (post_id, user_id)
    select p.id, ${owner.id} from public.posts p where p.author_id = any (${friendIds}::uuid[]) limit 5000`;
  await asRoot`
    insert into public.post_likes (post_id, user_id)
    select p.id, f from public.posts p, unnest(${friendIds}::uuid[]) f where p.author_id = ${owner.id} limit 2000`;
  await asRoot`
    insert into public.follows (follower_id, followee_id, status)
    select ${owner.id}, p.id, 'accepted' from public.profiles p where p.id <> ${owner.id} limit 500 on conflict do nothing`;
  await asRoot`
    insert into public.follows (follower_id, followee_id, status)
    select p.id, ${owner.id}, 'accepted' from public.profiles p where p.id <> ${owner.id} limit 500 on conflict do nothing`;
  await asRoot`analyze`;
  return owner;
}

const owner = authIsRunning ? await seed() : undefined;

describe.skipIf(!authIsRunning)('GET /user/export, 10,000 posts', () => {
  let reported = false;
  bench('the whole archive, read to its end', async () => {
    const response = await fetch(`${stack.functionsUrl}/user/export`, {
      headers: { Authorization: `Bearer ${owner!.accessToken}` },
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`export answered ${response.status}: ${text.slice(0, 200)}`);
    if (!reported) {
      const archive = JSON.parse(text);
      console.log(
        `archive: ${
          (text.length / 1e6).toFixed(1)
        } MB, ${archive.posts.length} posts, ${archive.comments.length} comments, ` +
          `${archive.likes.length} likes, ${archive.following.length} following, ${archive.followers.length} followers, ` +
          `${archive.notifications.length} notifications`,
      );
      reported = true;
    }
  }, { time: 10_000, iterations: 5, warmupIterations: 1 });
});
