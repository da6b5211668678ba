import { describe, expect, it } from 'vitest';
import { auditCsv, csvCell } from './auditRoutes.js';

describe('csvCell', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+44 20', "'+44 20"],
    ['-5', "'-5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
  ])('prefixes a cell that starts like a formula with a quote: %j', (cell, written) => {
    expect(csvCell(cell)).toBe(written);
  });
  it.each([
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("x","y")', `"'=HYPERLINK(""x"",""y"")"`],
    ['DepositConfirmed', 'DepositConfirmed'],
    [true, 'true'],
  ])('quotes separators, quotes and line breaks, and leaves plain text alone: %j', (cell, written) => {
    expect(csvCell(cell)).toBe(written);
  });
});

describe('auditCsv', () => {
  it('writes a header and one CRLF line per entry', () => {
    const csv = auditCsv([
      {
        id: 'e1',
        at: '2026-01-02T03:04:05.000Z',
        adminId: 'a1',
        adminEmail: 'admin@example.com',
        userId: 'u1',
        userEmail: '=cmd@example.com',
        action: 'RoleChanged',
        service: 'identity',
        address: '203.0.113.7',
        impersonating: false,
        details: '{"toRole":"suspended"}',
      },
    ]);
    expect(csv).toBe(
      'at,admin,adminId,user,userId,action,service,address,impersonating,details\r\n' +
        `2026-01-02T03:04:05.000Z,admin@example.com,a1,'=cmd@example.com,u1,RoleChanged,identity,203.0.113.7,false,"{""toRole"":""suspended""}"\r\n`,
    );
  });
});
