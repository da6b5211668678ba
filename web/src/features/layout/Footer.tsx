import { Link } from 'react-router-dom';
import { Logo } from './Logo';

export function Footer() {
  return (
    <footer className="footer">
      <div className="container footer__grid">
        <div className="footer__brand">
          <Logo inverted />
          <p>
            Fixed-term investment plans with clear ranges, reviewed deposits and withdrawals, and a team that
            answers.
          </p>
        </div>
        <nav aria-label="Product" className="footer__col">
          <h2 className="footer__heading">Product</h2>
          <Link to="/plans">Plans</Link>
          <Link to="/how-it-works">How it works</Link>
          <Link to="/Hierarchy">Hierarchy</Link>
        </nav>
        <nav aria-label="Company" className="footer__col">
          <h2 className="footer__heading">Company</h2>
          <Link to="/about">About</Link>
          <Link to="/contact">Contact</Link>
          <Link to="/privacy-policy">Privacy policy</Link>
        </nav>
        <nav aria-label="Account" className="footer__col">
          <h2 className="footer__heading">Account</h2>
          <Link to="/register">Open an account</Link>
          <Link to="/login">Log in</Link>
          <Link to="/dashboard">Dashboard</Link>
        </nav>
      </div>
      <div className="container footer__legal">
        <p>© {new Date().getFullYear()} Meridian. All rights reserved.</p>
        <p>Investing involves risk. The value of investments can go down as well as up.</p>
      </div>
    </footer>
  );
}
