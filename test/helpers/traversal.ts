/**
 * The traversal atlas: URL paths that try to leave a user's scope (root/<user>) towards a sibling
 * user's `bob/secret.txt` or a `canary.txt` beside the root. Every protocol that takes a path
 * (the files API, WebDAV) replays all of them.
 */
export const PATH_ESCAPES = [
  '/..',
  '/../',
  '/../canary.txt',
  '/../../canary.txt',
  '/../bob/secret.txt',
  '/%2e%2e/bob/secret.txt',
  '/%2E%2E/%2E%2E/canary.txt',
  '/%2e%2e%2fbob%2fsecret.txt',
  '/..%2f..%2fcanary.txt',
  '/.%2e/bob/secret.txt',
  '/x/../../bob/secret.txt',
  '/x/%2e%2e/%2e%2e/bob/secret.txt',
  '//..//..//canary.txt',
  '/..%5cbob%5csecret.txt',
  '/%5c..%5c..%5ccanary.txt',
  '/..\\..\\canary.txt',
  '/%c0%ae%c0%ae/bob/secret.txt',
  '/%e0%80%ae%e0%80%ae/canary.txt',
  '/secret.txt%00.png',
  '/%00',
  '/a%00/../..',
  '/%ff%fe/x',
  '/%',
  '/%2',
  `/${'a'.repeat(300)}`,
  `/${'x/'.repeat(3000)}`,
];
