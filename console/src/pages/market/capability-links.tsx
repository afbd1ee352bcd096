// Capability identifiers as a row of links to their pages (the market's home and a service's page list them).
import { Link, seg } from '../../router';

export function CapabilityLinks({ slugs }: { slugs: string[] }) {
  return (
    <span className="chips">
      {slugs.map((slug) => (
        <Link key={slug} className="chip" to={`/capabilities/${seg(slug)}`}>
          {slug}
        </Link>
      ))}
    </span>
  );
}
