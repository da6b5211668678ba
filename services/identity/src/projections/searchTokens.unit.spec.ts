import { describe, expect, it } from 'vitest';
import { MAX_PREFIX, matchesSearch, normaliseSearch, searchPlan, searchTerms } from './searchTokens.js';

describe('search tokens (pure)', () => {
  it('normalises case, Unicode forms and spaces', () => {
    expect(normaliseSearch('  ÉLODIE\tMarchetti ')).toBe('élodie marchetti');
    expect(normaliseSearch('E\u0301lo')).toBe('élo');
    expect(normaliseSearch('ｆｕｌｌ')).toBe('full'); // NFKC folds the full-width forms
  });

  it('makes the prefixes of each word of the name, of the address and of its local part, once each', () => {
    const terms = searchTerms('Ann Lee', 'Ann.L@Ex.com');
    expect(terms).toEqual(
      expect.arrayContaining(['a', 'an', 'ann', 'l', 'le', 'lee', 'ann.', 'ann.l', 'ann.l@ex.com']),
    );
    expect(new Set(terms).size).toBe(terms.length);
    expect(terms).not.toContain('ex.com'); // the domain is no word of its own
    // at most MAX_PREFIX code points, never half a surrogate pair
    const long = searchTerms('😀'.repeat(30), '');
    expect(long).toHaveLength(MAX_PREFIX);
    expect(Array.from(long.at(-1)!)).toHaveLength(MAX_PREFIX);
    expect(long.at(-1)).toBe('😀'.repeat(MAX_PREFIX));
  });

  it('plans a lookup by the first word and filters what one token cannot tell', () => {
    expect(searchPlan('  ')).toBeNull();
    expect(searchPlan('AnN')).toEqual({ term: 'ann', exact: true, query: 'ann' });
    expect(searchPlan('ann  le')).toEqual({ term: 'ann', exact: false, query: 'ann le' });
    const word = 'x'.repeat(30);
    expect(searchPlan(word)).toEqual({ term: 'x'.repeat(MAX_PREFIX), exact: false, query: word });
  });

  it('matches a query starting the name at a word, or the email', () => {
    const user = { name: 'Élodie Marchetti Rossi', email: 'elo.m@example.com' };
    expect(matchesSearch(user, 'marchetti r')).toBe(true);
    expect(matchesSearch(user, 'élodie marchetti')).toBe(true);
    expect(matchesSearch(user, 'elo.m@ex')).toBe(true);
    expect(matchesSearch(user, 'rossi m')).toBe(false);
    expect(matchesSearch(user, 'example')).toBe(false);
  });
});
