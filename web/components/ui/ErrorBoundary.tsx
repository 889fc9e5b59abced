/**
 * The root error boundary: an exception while rendering shows a recoverable screen (the message,
 * Retry, Home) instead of a blank page. Retry forgets the server data (it may be what broke the
 * page) and renders again; Home does the same at /files/.
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate } from '../../lib/navigate.ts';
import { Icon } from './Icon.tsx';

interface Props {
  children: ReactNode;
  /** Runs before the children render again (the app resets its query cache). */
  onReset(): void;
}

function CrashScreen({ error, retry, home }: { error: Error; retry(): void; home(): void }) {
  const { t } = useTranslation();
  return (
    <main className="crash-screen" role="alert">
      <Icon name="alert" size={64} />
      <h1>{t('errors.crashed')}</h1>
      <p className="crash-message">{error.message}</p>
      <div className="crash-actions">
        <button type="button" className="button button-primary" onClick={retry}>
          {t('buttons.retry')}
        </button>
        <button type="button" className="button button-flat" onClick={home}>
          {t('buttons.home')}
        </button>
      </div>
    </main>
  );
}

export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // React reports the error itself; the component stack helps whoever reads the console.
    console.error('fm: the page failed to render', error, info.componentStack);
  }

  private reset = (): void => {
    this.props.onReset();
    this.setState({ error: null });
  };

  private home = (): void => {
    navigate('/files/');
    this.reset();
  };

  override render(): ReactNode {
    if (this.state.error) return <CrashScreen error={this.state.error} retry={this.reset} home={this.home} />;
    return this.props.children;
  }
}
