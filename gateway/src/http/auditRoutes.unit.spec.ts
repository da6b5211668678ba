import { describe, expect, it } from 'vitest';
import { auditCsv, csvCell } from './auditRoutes.js';

describe('csvCell', () => {
  it('prefixes a cell that starts like a formula with a quote', () => {
    expect(csvCell('=1+2')).toBe("'=1+2");
    expect(csvCell('+44 20')).toBe("'+44 20");
    expect(csvCell('-5')).toBe("'-5");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
  });
  it('quotes separators, quotes and line breaks, and leaves plain text alone', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("x","y")')).toBe(`"'=HYPERLINK(""x"",""y"")"`);
    expect(csvCell('DepositConfirmed')).toBe('DepositConfirmed');
    expect(csvCell(true)).toBe('true');
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
