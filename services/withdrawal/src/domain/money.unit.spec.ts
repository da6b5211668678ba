import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyRateBasisPoints, formatCents, parseDollarsToCents } from './money.js';

// money.ts is a copy of the ledger's (domain/ imports only the platform and itself); its full spec lives
// in services/ledger/src/domain/money.unit.spec.ts. This one keeps the copy from drifting.
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

describe('money.ts copy', () => {
  it('is the ledger money.ts, line for line, after its two-line header', () => {
    const copy = readFileSync(here('./money.ts'), 'utf8').split('\n').slice(2).join('\n');
    const original = readFileSync(here('../../../ledger/src/domain/money.ts'), 'utf8');
    expect(copy).toBe(original);
  });

  it('works here', () => {
    expect(parseDollarsToCents('1.15')).toBe(115);
    expect(formatCents(123450)).toBe('$1,234.50');
    expect(applyRateBasisPoints(1, 5000)).toBe(1);
  });
});
