/** The /403, /404 and /500 pages: the error's message as the page name in the header, search for a signed-in user, the error display. */
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { Header } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { SearchButton } from '../components/search/SearchButton.tsx';
import { ErrorScreen, errorScreen } from '../components/ui/ErrorScreen.tsx';
import { userAtom } from '../state/auth.ts';

export function ErrorPage({ code }: { code: number }) {
  const { t } = useTranslation();
  const user = useAtomValue(userAtom);
  return (
    <Layout header={<Header title={t(errorScreen(code).key)}>{user && <SearchButton />}</Header>}>
      <ErrorScreen code={code} />
    </Layout>
  );
}
