import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get_encoding } from 'tiktoken';
import { globSync } from 'tinyglobby';
import { afterAll, describe, expect, it } from 'vitest';
import { countPiece, loadRankTable, RANK_TABLE_FILE } from '../../core/rank-table.js';
import { seededRandom } from '../../core/random.js';
import { REPO_ROOT } from '../helpers/cli.js';

const enc = get_encoding('o200k_base');
afterAll(() => enc.free());

// The build writes the table (`npm run build`, run by `npm ci` and `npm test`): a missing one is a failure here.
const table = loadRankTable();

describe('the o200k rank table', () => {
  it('is built and matches the installed tiktoken', () => {
    expect(table, `${RANK_TABLE_FILE} is missing or stale: run npm run build`).toBeDefined();
  });

  it('counts every piece of the bundled datasets as tiktoken does', () => {
    const pieces = new Set<string>();
    const pattern = /[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s+/gu;
    for (const file of globSync('datasets/**/*.{yaml,md}', { cwd: REPO_ROOT, absolute: true })) {
      for (const m of readFileSync(file, 'utf8').matchAll(pattern)) pieces.add(m[0]);
    }
    expect(pieces.size).toBeGreaterThan(3000);
    for (const piece of pieces) expect(countPiece(table!, piece), JSON.stringify(piece)).toBe(enc.encode_ordinary(piece).length);
  });

  it('counts random pieces from many scripts as tiktoken does', () => {
    const random = seededRandom(17);
    const pick = (list: string[], most: number) => Array.from({ length: 1 + Math.floor(random() * most) }, () => list[Math.floor(random() * list.length)]).join('');
    const lower = ['a', 'e', 'th', 'ing', 'zz', 'é', 'ß', 'ς', 'ж', 'ы', 'ع', 'ไ', '中', '文', 'ー', 'e\u0301', 'ñ'];
    const upper = ['Q', 'A', 'TH', 'É', 'Ж', 'Σ'];
    const symbols = ['-', '=', '/', '•', '—', '€', '🙂', '👍🏽', '(', '"', '...', '#'];
    const spaces = [' ', '  ', '\t', '\u00a0', '\u3000'];
    // Each string is one piece of o200k's pattern by construction: a word with an optional leading
    // non-letter, one to three digits, a symbol run, or a run of white space.
    const makers = [
      () => `${random() < 0.5 ? pick([' ', '-', '"', '•', '\u00a0'], 1) : ''}${random() < 0.5 ? pick(upper, 2) : ''}${pick(lower, 6)}`,
      () => pick(['0', '1', '7', '٣', '४'], 3).slice(0, 3),
      () => `${random() < 0.5 ? ' ' : ''}${pick(symbols, 5)}`,
      () => pick(spaces, 4),
    ];
    for (let i = 0; i < 6000; i++) {
      const piece = makers[i % makers.length]();
      expect(countPiece(table!, piece), JSON.stringify(piece)).toBe(enc.encode_ordinary(piece).length);
    }
  });

  it('counts long pieces as tiktoken does (runs of spaces, dashes, symbols, CJK, a long word)', () => {
    const random = seededRandom(3);
    const base64 = Array.from({ length: 1500 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(random() * 64)]).join('');
    const letters = Array.from({ length: 800 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');
    for (const piece of [' '.repeat(300), '-'.repeat(200), ' ' + '='.repeat(777), letters, base64.toLowerCase().replace(/[^a-z]/g, 'q'), '中'.repeat(400), ' ' + '🙂'.repeat(120)]) {
      expect(countPiece(table!, piece), `${piece.slice(0, 20)}… (${piece.length})`).toBe(enc.encode_ordinary(piece).length);
    }
  });

  describe('is not trusted when', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-ranks-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const built = join(REPO_ROOT, RANK_TABLE_FILE);

    it('it is missing', () => {
      expect(loadRankTable(join(dir, 'none.bin'))).toBeUndefined();
    });

    it('it is cut short', () => {
      const file = join(dir, 'short.bin');
      writeFileSync(file, readFileSync(built).subarray(0, 1000));
      expect(loadRankTable(file)).toBeUndefined();
    });

    it('it was built from another tiktoken version', () => {
      const file = join(dir, 'stale.bin');
      copyFileSync(built, file);
      const data = readFileSync(file);
      // The version string starts at byte 24; change its first character.
      data[24] = data[24] === 0x39 ? 0x38 : 0x39;
      writeFileSync(file, data);
      expect(loadRankTable(file)).toBeUndefined();
      expect(loadRankTable(built)).toBeDefined();
    });
  });
});
