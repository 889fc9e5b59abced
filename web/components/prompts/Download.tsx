import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { PROMPT_ARCHIVE_FORMATS } from '../../../src/api/files.ts';
import { archiveUrl } from '../../api/resources.ts';
import { startDownload } from '../../actions/files.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { CancelButton, PromptFrame } from './PromptFrame.tsx';

/** Choosing one of the 7 archive formats confirms the download in that format. */
export function DownloadPrompt({ paths }: { paths: string[] }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const choose = (algo: string) => {
    startDownload(archiveUrl(paths, algo));
    close();
  };
  return (
    <PromptFrame title={t('prompts.download')} onSubmit={() => choose(PROMPT_ARCHIVE_FORMATS[0].algo)} buttons={<CancelButton />}>
      <p>{t('prompts.downloadMessage')}</p>
      <div className="download-formats">
        {PROMPT_ARCHIVE_FORMATS.map((f, i) => (
          <button key={f.algo} type="button" className="button button-flat" data-autofocus={i === 0 ? '' : undefined} onClick={() => choose(f.algo)}>
            {f.label}
          </button>
        ))}
      </div>
    </PromptFrame>
  );
}
