import { describe, expect, it } from 'vitest';
import { testPng } from '../testing/testImage.js';
import { imageDimensionsOf } from './imageDimensions.js';

describe('imageDimensionsOf', () => {
  it('reads the sides a header names', () => {
    expect(imageDimensionsOf(testPng(400, 300))).toEqual({ width: 400, height: 300 });
  });

  it('a header cut short names no sides, also on a slice of a larger buffer (never read past the slice)', () => {
    const around = Buffer.concat([
      Buffer.from('x'.repeat(24)),
      Buffer.from('GIF89a'),
      Buffer.from([1, 2, 3, 4]),
    ]);
    const gif = around.subarray(24, 30);
    expect(gif.toString('latin1')).toBe('GIF89a');
    expect(imageDimensionsOf(gif)).toBeNull();
    expect(imageDimensionsOf(Buffer.from('GIF89a'))).toBeNull();
  });
});
