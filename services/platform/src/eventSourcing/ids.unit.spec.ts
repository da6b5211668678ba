import { describe, expect, it, vi } from 'vitest';
import { timeOrderedId } from './ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('is a UUID version 7 (RFC 9562 variant) carrying the time in milliseconds', () => {
    const id = timeOrderedId();
    expect(id).toMatch(UUID_V7);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(5_000);
  });

  it('sorts ids made in later milliseconds after earlier ones, and never repeats one', () => {
    const now = vi.spyOn(Date, 'now');
    try {
      const ids: string[] = [];
      for (let ms = 1_700_000_000_000; ms < 1_700_000_000_050; ms++) {
        now.mockReturnValue(ms);
        ids.push(timeOrderedId(), timeOrderedId());
      }
      const byMs = ids.filter((_, i) => i % 2 === 0);
      expect([...byMs].sort()).toEqual(byMs);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      now.mockRestore();
    }
  });
});
