// Builds dist/o200k-ranks.bin from tiktoken's own o200k_base ranks (its
// encoders/o200k_base.json): an open-addressing hash table over each token's
// bytes that core/rank-table.ts reads with one file read and no parsing.
// tiktoken builds the same ranks into its WASM tables on every start, which
// costs a third of a second of CPU; counting a new piece from this table gives
// the same count (tested against tiktoken), and tiktoken stays the fallback
// when the file is missing or was built from another tiktoken version.
//
// Run by `npm run build` (and so by `npm ci` and `npm test`).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// tiktoken's manifest is not among its exports; its main file sits beside it.
const version = JSON.parse(readFileSync(join(dirname(require.resolve('tiktoken')), 'package.json'), 'utf8')).version;
const source = JSON.parse(readFileSync(require.resolve('tiktoken/encoders/o200k_base.json'), 'utf8')).bpe_ranks;

// "! <rank>" sets the next rank; every other word is a base64 token taking the next rank.
const tokens = [];
const ranks = [];
let rank = 0;
const words = source.split(' ');
for (let i = 0; i < words.length; i++) {
  if (words[i] === '!') {
    rank = Number(words[++i]);
    continue;
  }
  if (!words[i]) continue;
  tokens.push(Buffer.from(words[i], 'base64'));
  ranks.push(rank++);
}

// Layout (little-endian u32 unless said): magic "o2kR", format 1, token count n, slot count
// (a power of two ≥ 2n), blob length, version length, the tiktoken version (padded to 4 bytes),
// slots (i32 token index or -1), n+1 blob offsets, n ranks, the token bytes.
const n = tokens.length;
let slots = 1;
while (slots < 2 * n) slots *= 2;
const blobLength = tokens.reduce((sum, t) => sum + t.length, 0);
const versionBytes = Buffer.from(version, 'utf8');
const head = 24 + Math.ceil(versionBytes.length / 4) * 4;
const file = Buffer.alloc(head + 4 * slots + 4 * (n + 1) + 4 * n + blobLength);
file.write('o2kR', 0, 'latin1');
[1, n, slots, blobLength, versionBytes.length].forEach((v, i) => file.writeUInt32LE(v, 4 + 4 * i));
versionBytes.copy(file, 24);
const table = new Int32Array(file.buffer, file.byteOffset + head, slots).fill(-1);
const offsets = new Uint32Array(file.buffer, file.byteOffset + head + 4 * slots, n + 1);
const rankList = new Uint32Array(file.buffer, file.byteOffset + head + 4 * slots + 4 * (n + 1), n);
const blob = new Uint8Array(file.buffer, file.byteOffset + head + 4 * slots + 8 * n + 4, blobLength);
let at = 0;
tokens.forEach((token, k) => {
  offsets[k] = at;
  blob.set(token, at);
  at += token.length;
  rankList[k] = ranks[k];
  let hash = 0x811c9dc5; // FNV-1a; core/rank-table.ts hashes the same way
  for (const byte of token) hash = Math.imul(hash ^ byte, 0x01000193);
  let slot = (hash >>> 0) & (slots - 1);
  while (table[slot] !== -1) slot = (slot + 1) & (slots - 1);
  table[slot] = k;
});
offsets[n] = at;
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'o200k-ranks.bin'), file);
