import { describe, expect, it } from 'vitest';
import { newClusterId } from '../scripts/kafka/broker.js';

describe('the Kafka cluster id', () => {
  it('is 22 base64url characters and never starts with "-" (the storage tool would read it as an option)', () => {
    for (let i = 0; i < 2_000; i++) {
      const id = newClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
