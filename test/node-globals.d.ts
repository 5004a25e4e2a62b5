// Node's `console` and `crypto` globals, typed by @types/node, and `import.meta.url`, for `npm run check` (deno.test.jsonc). Deno shows
// @types/node's declarations of these two to npm packages only, and declares them for user code in its
// "deno.shared_globals" library, which also brings the Deno namespace that Node does not have.
// deno-lint-ignore-file no-var -- `declare var` is how a global (a property of globalThis) is declared.
declare var console: typeof import('node:console');
declare var crypto: import('node:crypto').webcrypto.Crypto;
// Node gives an ES module its own URL (the function reads its e-mail templates beside it).
interface ImportMeta {
  url: string;
}
