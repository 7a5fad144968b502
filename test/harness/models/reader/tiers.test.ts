import { describe, expect, it } from 'vitest';
import { findSpans } from '../../../../harness/models/reader/spans.js';
import { tierFor } from '../../../../harness/models/reader/tiers.js';

const POLICY = "Employees give 1 month's notice with less than 5 years of service and 2 months' notice with 5 years or more.";
const quantities = (text: string) => findSpans(text).filter((s) => s.type === 'quantity');

describe('tierFor', () => {
  it('picks the value of the tier whose threshold the question states a case of', () => {
    expect(tierFor('An engineer with 6 years of service is resigning. How much notice do they owe?', POLICY, quantities(POLICY))?.text).toBe('2 months');
    expect(tierFor('Someone with 3 years of service resigns: how much notice?', POLICY, quantities(POLICY))?.text).toBe('1 month');
    // The threshold itself meets "5 years or more".
    expect(tierFor('After 5 years of service, how much notice?', POLICY, quantities(POLICY))?.text).toBe('2 months');
  });

  it('reads thresholds written after the number and limits written before it', () => {
    const shipping = 'Shipping is 12 days for orders under 3 kg, and 5 days for orders of at least 3 kg.';
    expect(tierFor('My order weighs 4 kg. How many days does shipping take?', shipping, quantities(shipping))?.text).toBe('5 days');
    expect(tierFor('My order weighs 2 kg. How many days does shipping take?', shipping, quantities(shipping))?.text).toBe('12 days');
  });

  it('reads tiers by date, with the other side said without its date', () => {
    const memo = 'The stipend is €750 for hires starting on or after 1 March 2025; earlier hires keep €600 under HB-6.5.';
    const money = findSpans(memo).filter((s) => s.type === 'money');
    expect(tierFor('And someone who started on 20 February 2025, which stipend amount applies?', memo, money)?.text).toBe('€600');
    expect(tierFor('Someone who started on 3 March 2025: which stipend amount applies?', memo, money)?.text).toBe('€750');
    expect(tierFor('Which stipend amount applies?', memo, money)).toBeUndefined();
  });

  it('stays out when the question states no case or the statement gives no tiers', () => {
    expect(tierFor('How much notice do employees give?', POLICY, quantities(POLICY))).toBeUndefined();
    const flat = 'Notice is 1 month, and probation lasts 2 months.';
    expect(tierFor('With 6 years of service, how much notice?', flat, quantities(flat))).toBeUndefined();
  });
});
