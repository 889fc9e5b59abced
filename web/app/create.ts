/** Builds the running app: one store, one query client, the session and the upload manager over them. */
import { createStore } from 'jotai';
import * as resources from '../api/resources.ts';
import { isPartial } from '../api/listing-pages.ts';
import { createQueryClient, invalidateFiles, resourceQuery } from '../api/queries.ts';
import { filesPath } from '../actions/files.ts';
import { notifier } from '../actions/notify.ts';
import { samePath } from '../lib/paths.ts';
import { createSession } from '../actions/session.ts';
import { UploadManager } from '../actions/upload.ts';
import { tokenAtom } from '../state/auth.ts';
import { showPromptAtom } from '../state/prompts.ts';
import type { App } from './context.tsx';

export function createApp(): App {
  const store = createStore();
  const queryClient = createQueryClient();
  const uploads = new UploadManager({
    token: () => store.get(tokenAtom),
    notify: notifier(store),
    askReplace: (onChoose) => store.set(showPromptAtom, { name: 'replace', props: { onChoose } }),
    // The folder on screen comes from the query cache; any other folder is asked for.
    existingNames: async (dir) => {
      const shown = filesPath();
      const cached = shown !== undefined && samePath(shown, dir) ? queryClient.getQueryData(resourceQuery(shown).queryKey) : undefined;
      const res = cached && !isPartial(cached) ? cached : await resources.get(dir);
      return new Set((res.items ?? []).map((i) => i.name));
    },
    filesChanged: () => void invalidateFiles(queryClient),
  });
  return { store, queryClient, uploads, session: createSession(store) };
}
