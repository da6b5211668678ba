import { Link } from 'react-router-dom';

export function NotFoundPage() {
  return (
    <div className="container section not-found">
      <p className="not-found__code">404</p>
      <h1 className="h2">Page not found</h1>
      <p className="muted">The page you are looking for does not exist or has moved.</p>
      <Link to="/" className="btn btn--primary btn--md">
        Back to home
      </Link>
    </div>
  );
}
