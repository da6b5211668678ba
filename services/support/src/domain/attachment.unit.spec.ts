import { describe, expect, it } from 'vitest';
import { DomainError } from '@meridian/platform/eventSourcing/errors';
import { testPng } from '@meridian/platform/testing/testImage';
import { MAX_UPLOAD_BYTES } from '@meridian/platform/files/fileKind';
import { imageDimensionsOf } from '@meridian/platform/files/imageDimensions';
import {
  ATTACHMENT_MESSAGES,
  MIN_ATTACHMENT_SIDE,
  attachmentName,
  checkAttachmentFile,
} from './attachment.js';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'invalid') return err.message;
    throw err;
  }
  throw new Error('not refused');
};
const check = (bytes: Buffer) => checkAttachmentFile(bytes, imageDimensionsOf(bytes));

describe('support attachments: the content decides', () => {
  it('takes a real PNG screenshot and a PDF, whatever they are called', () => {
    expect(check(testPng(320, 80))).toBe('png');
    expect(check(Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n'))).toBe('pdf');
  });

  it('refuses a file that is not what it claims (HTML, text, an empty file) with a clear message', () => {
    expect(refusal(() => check(Buffer.from('<html><script>alert(1)</script></html>')))).toBe(
      ATTACHMENT_MESSAGES.invalidFormat,
    );
    expect(refusal(() => check(Buffer.from('hello')))).toBe(ATTACHMENT_MESSAGES.invalidFormat);
    expect(refusal(() => check(Buffer.alloc(0)))).toBe(ATTACHMENT_MESSAGES.empty);
  });

  it('refuses more than 10 MB, and an image whose header names no dimensions', () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_UPLOAD_BYTES)]);
    expect(refusal(() => check(big))).toBe(ATTACHMENT_MESSAGES.tooLarge);
    expect(refusal(() => check(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0])))).toBe(
      ATTACHMENT_MESSAGES.unreadableImage,
    );
  });

  it(`takes a cropped screenshot down to ${MIN_ATTACHMENT_SIDE} pixels a side, not below`, () => {
    expect(check(testPng(600, MIN_ATTACHMENT_SIDE))).toBe('png');
    expect(refusal(() => check(testPng(600, MIN_ATTACHMENT_SIDE - 1)))).toMatch(
      /too small \(600×31 pixels\): each side must be at least 32 pixels/,
    );
  });
});

describe('support attachments: the name shown', () => {
  it('keeps a plain name and makes its extension the detected kind', () => {
    expect(attachmentName('transfer receipt (1).png', 'png')).toBe('transfer receipt (1).png');
    expect(attachmentName('invoice.html', 'png')).toBe('invoice.png');
    expect(attachmentName('Überweisung.PDF', 'pdf')).toBe('Überweisung.pdf');
  });

  it('drops paths, markup and control characters, and names a nameless file', () => {
    expect(attachmentName('C:\\Users\\me\\..\\shot.jpg', 'jpeg')).toBe('shot.jpg');
    expect(attachmentName('../../etc/passwd', 'pdf')).toBe('passwd.pdf');
    expect(attachmentName('<img src=x onerror=alert(1)>.png', 'png')).toBe('img src_x onerror_alert(1).png');
    expect(attachmentName('a\u0000b\u202e.png', 'png')).toBe('a_b.png');
    expect(attachmentName('', 'gif')).toBe('attachment.gif');
    expect(attachmentName(undefined, 'webp')).toBe('attachment.webp');
    expect(attachmentName(`${'x'.repeat(300)}.png`, 'png')).toHaveLength(100);
  });
});
