import { PageHeader } from '../../ui/Card';
import { LinkButton } from '../../ui/ScreenParts';

/** The two support pages of the administration, each linking to the other from its header. */
const SUPPORT_ADMIN_PAGES = {
  inbox: {
    path: '/support-inbox',
    title: 'Support inbox',
    subtitle: 'Answer investors and visitors, and send the deposit addresses they ask for.',
  },
  addresses: {
    path: '/admin-deposit-addresses',
    title: 'Deposit address book',
    subtitle:
      'The wallet addresses support sends to investors. Each is checked for its network before it is saved.',
  },
};

export function SupportAdminHeader({ page }: { page: 'inbox' | 'addresses' }) {
  const here = SUPPORT_ADMIN_PAGES[page];
  const other = SUPPORT_ADMIN_PAGES[page === 'inbox' ? 'addresses' : 'inbox'];
  return (
    <PageHeader
      eyebrow="Administration"
      title={here.title}
      subtitle={here.subtitle}
      actions={
        <LinkButton to={other.path} variant="secondary" size="sm">
          {other.title}
        </LinkButton>
      }
    />
  );
}
