// Numbers in the reports read as en-US writes them; Intl.NumberFormat is the oracle.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../core/random.js';
import { num } from '../../reports/format.js';

const intl = (value: number, digits: number): string => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);

describe('num', () => {
  it('groups thousands and rounds half away from zero on the printed decimal, as Intl does', () => {
    expect(num(1234567)).toBe('1,234,567');
    expect(num(1234.5678, 2)).toBe('1,234.57');
    expect(num(-1234.5, 0)).toBe('-1,235');
    expect(num(1.005, 2)).toBe('1.01');
    expect(num(999.96, 1)).toBe('1,000.0');
    expect(num(0.5)).toBe('1');
    expect(num(12, 3)).toBe('12.000');
    expect(num(1e21)).toBe(intl(1e21, 0));
    expect(num(1e-7, 2)).toBe('0.00');
  });

  it('matches Intl.NumberFormat on 40,000 random values at 0 to 3 decimals, except that a value rounding to zero has no minus sign', () => {
    // Seeded, so a failure names a value that reproduces.
    const random = seededRandom(20);
    for (let i = 0; i < 10_000; i++) {
      const value = (random() - 0.5) * 10 ** Math.floor(random() * 14);
      for (const digits of [0, 1, 2, 3]) {
        const want = intl(value, digits).replace(/^-(?=[0.]+$)/, '');
        expect(num(value, digits), `${value} at ${digits}`).toBe(want);
      }
    }
  });

  it('writes a dash for no value, NaN and infinities', () => {
    expect([num(undefined), num(Number.NaN), num(Number.POSITIVE_INFINITY)]).toEqual(['–', '–', '–']);
    expect(num(-0.0004, 2)).toBe('0.00');
  });
});
