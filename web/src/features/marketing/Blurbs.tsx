/** Cards of a title and its paragraph, in the blurb grid; `heading`: the titles' level on their page. */
export function Blurbs({
  items,
  heading: Heading,
  className = 'blurb-grid',
}: {
  items: Array<{ title: string; text: string }>;
  heading: 'h2' | 'h3';
  className?: string;
}) {
  return (
    <div className={className}>
      {items.map((b) => (
        <article key={b.title} className="card blurb">
          <Heading className="h4">{b.title}</Heading>
          <p className="muted">{b.text}</p>
        </article>
      ))}
    </div>
  );
}
