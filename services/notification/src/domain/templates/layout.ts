/**
 * The one branded layout every Meridian email uses, in plain text and HTML.
 * Pure: no I/O, no clock. Every interpolated value is HTML-escaped here.
 */

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** One block of an email body, rendered in order. */
export type Block =
  | { kind: 'paragraph'; text: string }
  /** A large, spaced-out value such as a login code. */
  | { kind: 'code'; value: string }
  /** The one primary call to action; the URL is repeated as plain text for clients without buttons. */
  | { kind: 'button'; label: string; url: string }
  /** Label/value rows such as "Amount: $1,250.00". */
  | { kind: 'facts'; rows: Array<{ label: string; value: string }> }
  | { kind: 'note'; text: string };

export interface LayoutInput {
  subject: string;
  /** Hidden preview line shown by mail clients next to the subject. */
  preheader: string;
  greetingName?: string;
  heading: string;
  blocks: Block[];
  /** Why the person got this email ("You received this email because ..."). */
  reason: string;
  appUrl: string;
}

export const BRAND = {
  name: 'Meridian',
  primary: '#1d4ed8',
  ink: '#0f172a',
  muted: '#64748b',
  background: '#f1f5f9',
  card: '#ffffff',
  border: '#e2e8f0',
  font: "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif",
} as const;

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Joins a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export function renderLayout(input: LayoutInput): RenderedEmail {
  return { subject: input.subject, text: renderText(input), html: renderHtml(input) };
}

function greeting(name: string | undefined): string {
  const trimmed = name?.trim();
  return trimmed ? `Hi ${trimmed},` : 'Hi,';
}

function renderText(input: LayoutInput): string {
  const lines: string[] = [BRAND.name, '', input.heading, '', greeting(input.greetingName), ''];
  for (const block of input.blocks) {
    switch (block.kind) {
      case 'paragraph':
      case 'note':
        lines.push(block.text, '');
        break;
      case 'code':
        lines.push(`    ${block.value}`, '');
        break;
      case 'button':
        lines.push(`${block.label}: ${block.url}`, '');
        break;
      case 'facts':
        for (const row of block.rows) lines.push(`${row.label}: ${row.value}`);
        lines.push('');
        break;
      default:
        assertNever(block);
    }
  }
  lines.push('— The Meridian team', '', '--', input.reason, input.appUrl);
  return lines.join('\n');
}

function renderBlockHtml(block: Block): string {
  switch (block.kind) {
    case 'paragraph':
      return `<p style="margin:0 0 16px;font-size:16px;line-height:24px;color:${BRAND.ink};">${escapeHtml(block.text)}</p>`;
    case 'note':
      return `<p style="margin:0 0 16px;font-size:14px;line-height:21px;color:${BRAND.muted};">${escapeHtml(block.text)}</p>`;
    case 'code':
      return (
        `<p style="margin:8px 0 24px;text-align:center;">` +
        `<span style="display:inline-block;padding:14px 24px;border-radius:8px;background:${BRAND.background};` +
        `border:1px solid ${BRAND.border};font-family:'SFMono-Regular',Consolas,'Liberation Mono',monospace;` +
        `font-size:32px;font-weight:700;letter-spacing:8px;color:${BRAND.ink};">${escapeHtml(block.value)}</span></p>`
      );
    case 'button': {
      const href = escapeHtml(block.url);
      return (
        `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 24px;"><tr>` +
        `<td style="border-radius:8px;background:${BRAND.primary};">` +
        `<a href="${href}" style="display:inline-block;padding:12px 28px;font-size:16px;font-weight:600;` +
        `color:#ffffff;text-decoration:none;border-radius:8px;">${escapeHtml(block.label)}</a></td></tr></table>` +
        `<p style="margin:0 0 16px;font-size:13px;line-height:20px;color:${BRAND.muted};">` +
        `If the button does not work, copy this link into your browser:<br>` +
        `<a href="${href}" style="color:${BRAND.primary};word-break:break-all;">${href}</a></p>`
      );
    }
    case 'facts':
      return (
        `<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="margin:0 0 16px;border-collapse:collapse;">` +
        block.rows
          .map(
            (row) =>
              `<tr><td style="padding:6px 0;border-bottom:1px solid ${BRAND.border};font-size:14px;color:${BRAND.muted};">${escapeHtml(row.label)}</td>` +
              `<td style="padding:6px 0;border-bottom:1px solid ${BRAND.border};font-size:14px;color:${BRAND.ink};text-align:right;font-weight:600;">${escapeHtml(row.value)}</td></tr>`,
          )
          .join('') +
        `</table>`
      );
    default:
      return assertNever(block);
  }
}

function renderHtml(input: LayoutInput): string {
  const body = input.blocks.map(renderBlockHtml).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.subject)}</title>
</head>
<body style="margin:0;padding:0;background:${BRAND.background};font-family:${BRAND.font};">
<span style="display:none;max-height:0;overflow:hidden;opacity:0;">${escapeHtml(input.preheader)}</span>
<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="background:${BRAND.background};">
<tr><td align="center" style="padding:32px 16px;">
<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" style="max-width:560px;">
<tr><td style="padding:0 8px 16px;font-size:22px;font-weight:700;letter-spacing:0.5px;color:${BRAND.primary};">${BRAND.name}</td></tr>
<tr><td style="background:${BRAND.card};border:1px solid ${BRAND.border};border-radius:12px;padding:32px;">
<h1 style="margin:0 0 16px;font-size:22px;line-height:30px;font-weight:700;color:${BRAND.ink};">${escapeHtml(input.heading)}</h1>
<p style="margin:0 0 16px;font-size:16px;line-height:24px;color:${BRAND.ink};">${escapeHtml(greeting(input.greetingName))}</p>
${body}
<p style="margin:8px 0 0;font-size:16px;line-height:24px;color:${BRAND.ink};">The Meridian team</p>
</td></tr>
<tr><td style="padding:16px 8px 0;font-size:12px;line-height:18px;color:${BRAND.muted};text-align:center;">
${escapeHtml(input.reason)}<br>
<a href="${escapeHtml(input.appUrl)}" style="color:${BRAND.muted};">${escapeHtml(input.appUrl.replace(/^https?:\/\//, ''))}</a>
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>`;
}

function assertNever(value: never): never {
  throw new Error(`unhandled block ${JSON.stringify(value)}`);
}
