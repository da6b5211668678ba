import { describe, expect, it } from 'vitest';
import { errorMessage } from './errors';

describe('errorMessage (spec §8)', () => {
  it('prefers the server message, then the error message, then the string form', () => {
    expect(
      errorMessage({ response: { data: { message: 'Server says no' } }, message: 'Request failed' }),
    ).toBe('Server says no');
    expect(errorMessage({ response: { data: {} }, message: 'Network Error' })).toBe('Network Error');
    expect(errorMessage('plain failure')).toBe('plain failure');
  });
});
