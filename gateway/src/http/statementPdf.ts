/**
 * The PDF of an account statement: title, user, period, opening and closing balances per account,
 * every entry with its postings and its hash (monospace, small), the chain head, and how to verify the JSON
 * twin of the document (`npx meridian-verify`). Rendered with pdfkit's standard fonts (nothing embedded).
 */
import PDFDocument from 'pdfkit';
import { formatCents, type Statement } from 'meridian-verify';

export const ACCOUNT_LABELS: Record<string, string> = {
  deposit: 'Deposit Balance',
  invested: 'Total Investment',
  profit: 'Total Profit',
  withdrawal_hold: 'Held for withdrawals',
  investment_hold: 'Held for investments',
};

export const VERIFY_LINE =
  'To verify: download this statement as JSON (the same period) and run, in the Meridian repository, the ' +
  'command below (or use Verify on the Statements page). It recomputes every hash and every balance.';
export const VERIFY_COMMAND = 'npx meridian-verify statement.json';

/**
 * The statement as a PDF file. `compress: false` leaves the page streams readable (tests look for the
 * chain head in them).
 */
export function renderStatementPdf(
  s: Statement,
  options: { userName?: string; userEmail?: string; compress?: boolean } = {},
): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 48,
    compress: options.compress ?? true,
    info: {
      Title: `Meridian account statement ${s.from.slice(0, 10)} – ${s.to.slice(0, 10)}`,
      Author: 'Meridian',
      Subject: `Chain head ${s.head.seq} ${s.head.hash}`,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const mono = (size = 7) => doc.font('Courier').fontSize(size);
  const text = (size = 10, bold = false) => doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(size);

  text(18, true).text('Account statement');
  text(10).moveDown(0.3);
  const who = [options.userName, options.userEmail].filter(Boolean).join(' · ');
  text(10).text(`User: ${who ? `${who} ` : ''}(${s.userId})`);
  text(10).text(`Period: ${s.from} to ${s.to}`);
  text(10).text(`Generated: ${s.generatedAt}   Format: ${s.format}`);
  doc.moveDown();

  text(12, true).text('Balances (USD)');
  doc.moveDown(0.2);
  // a table: the account's name, then opening and closing right-aligned in columns of their own
  const left = doc.page.margins.left;
  const columns = [
    { title: 'Account', x: left, width: 200, align: 'left' as const },
    { title: 'Opening', x: left + 210, width: 110, align: 'right' as const },
    { title: 'Closing', x: left + 330, width: 110, align: 'right' as const },
  ];
  const row = (cells: string[], bold = false) => {
    const y = doc.y;
    cells.forEach((cell, i) =>
      text(10, bold).text(cell, columns[i].x, y, { width: columns[i].width, align: columns[i].align }),
    );
    doc.x = left;
    doc.y = y + doc.currentLineHeight(true) + 2;
  };
  row(
    columns.map((c) => c.title),
    true,
  );
  for (const a of s.accounts)
    row([ACCOUNT_LABELS[a.kind] ?? a.kind, formatCents(a.openingCents), formatCents(a.closingCents)]);
  doc.moveDown();

  text(12, true).text(`Entries (${s.entries.length})`);
  text(9).text(`Opening link: #${s.opening.seq}`);
  mono().text(s.opening.hash);
  doc.moveDown(0.3);
  if (s.entries.length === 0) text(10).text('No transactions in this period.');
  for (const e of s.entries) {
    text(9, true).text(`#${e.seq}  ${e.postedAt}  ${e.reason}${e.memo ? ` — ${e.memo}` : ''}`);
    text(8).text(`Transaction ${e.transactionId}`);
    for (const p of e.postings)
      mono(8).text(`  ${p.accountId.padEnd(60)} ${formatCents(p.amountCents).padStart(16)}`);
    mono().text(`prev ${e.prevHash}`);
    mono().text(`hash ${e.hash}`);
    doc.moveDown(0.4);
  }
  doc.moveDown();
  text(12, true).text('Chain head');
  text(9).text(`#${s.head.seq}`);
  mono(8).text(s.head.hash);
  doc.moveDown();
  text(9).text(VERIFY_LINE);
  mono(9).text(VERIFY_COMMAND);
  doc.end();
  return done;
}
