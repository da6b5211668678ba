/** The links found in an email body (HTML hrefs first, then bare URLs in the text), de-duplicated. Pure. */

const HREF = /href\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const BARE_URL = /\bhttps?:\/\/[^\s<>"')\]]+/gi;

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function extractLinks(html: string | null | undefined, text: string | null | undefined): string[] {
  const found: string[] = [];
  for (const m of (html ?? '').matchAll(HREF)) {
    const href = decodeEntities((m[1] ?? m[2] ?? '').trim());
    if (/^https?:\/\//i.test(href)) found.push(href);
  }
  for (const m of (text ?? '').matchAll(BARE_URL)) found.push(m[0].replace(/[.,;:!?]+$/, ''));
  return [...new Set(found)];
}
