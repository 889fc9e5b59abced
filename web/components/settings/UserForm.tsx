/**
 * The user form (spec §2 "User edit", §4 "Admin flag", §5): for a new user, an existing user,
 * or the new-user defaults of the global settings.
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { PermissionName } from '../../../src/api/user.ts';
import { LOCALES, mapLanguageTag } from '../../i18n/locales.ts';
import { RulesEditor } from './RulesEditor.tsx';
import { QuotaFields } from './QuotaFields.tsx';
import { PERMISSIONS, setPermission, type UserDraft } from '../../lib/userDraft.ts';

export type UserFormMode = 'new' | 'edit' | 'defaults';

export interface UserFormProps {
  value: UserDraft;
  onChange: (d: UserDraft) => void;
  mode: UserFormMode;
  /** Command execution is enabled: the execute permission and the commands field show. */
  exec: boolean;
  /** The server creates home folders (offers the create-user-dir tick for new users). */
  createUserDir?: boolean;
}

const PERM_KEYS: Record<PermissionName, string> = {
  admin: 'settings.administrator',
  create: 'settings.perm.create',
  delete: 'settings.perm.delete',
  download: 'settings.perm.download',
  modify: 'settings.perm.modify',
  execute: 'settings.perm.execute',
  rename: 'settings.perm.rename',
  share: 'settings.perm.share',
};

export function UserForm({ value: d, onChange, mode, exec, createUserDir = false }: UserFormProps) {
  const { t } = useTranslation();
  const id = useId();
  const set = (patch: Partial<UserDraft>) => onChange({ ...d, ...patch });
  const admin = d.perm.admin;
  const localeCode = mapLanguageTag(d.locale) ?? d.locale;
  const check = (label: string, checked: boolean, onToggle: (v: boolean) => void, disabled = false, name?: string) => (
    <label className="checkbox">
      <input type="checkbox" name={name} checked={checked} disabled={disabled} onChange={(e) => onToggle(e.target.checked)} />
      <span>{label}</span>
    </label>
  );
  return (
    <div className="user-form">
      {mode !== 'defaults' && (
        <>
          <label className="field">
            <span>{t('settings.username')}</span>
            <input
              className="input"
              name="username"
              autoComplete="off"
              spellCheck={false}
              value={d.username}
              onChange={(e) => set({ username: e.target.value })}
            />
          </label>
          <label className="field">
            <span>{t('settings.password')}</span>
            <input
              className="input"
              name="password"
              type="password"
              autoComplete="new-password"
              placeholder={mode === 'edit' ? t('settings.passwordUnchanged') : undefined}
              value={d.password}
              onChange={(e) => set({ password: e.target.value })}
            />
          </label>
        </>
      )}
      {mode === 'new' &&
        createUserDir &&
        check(t('settings.createUserHomeDirectory'), d.createUserDir, (v) => set({ createUserDir: v }), false, 'createUserDir')}
      <label className="field">
        <span>{t('settings.scope')}</span>
        <input
          className="input"
          name="scope"
          spellCheck={false}
          disabled={mode === 'new' && d.createUserDir}
          value={mode === 'new' && d.createUserDir ? '' : d.scope}
          placeholder={mode === 'new' && d.createUserDir ? t('settings.scopeFromHome') : undefined}
          onChange={(e) => set({ scope: e.target.value })}
        />
      </label>
      <QuotaFields value={d} onChange={set} />
      <label className="field">
        <span>{t('settings.language')}</span>
        <select className="input" name="locale" value={localeCode} onChange={(e) => set({ locale: e.target.value })}>
          {!LOCALES.some((l) => l.code === localeCode) && <option value={d.locale}>{d.locale || t('settings.browserLanguage')}</option>}
          {LOCALES.map((l) => (
            <option key={l.code} value={l.code} lang={l.tag}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      {mode === 'defaults' && (
        <>
          <label className="field">
            <span>{t('settings.viewMode')}</span>
            <select className="input" name="viewMode" value={d.viewMode} onChange={(e) => set({ viewMode: e.target.value as UserDraft['viewMode'] })}>
              <option value="list">{t('settings.viewModes.list')}</option>
              <option value="mosaic">{t('settings.viewModes.mosaic')}</option>
              <option value="mosaic gallery">{t('settings.viewModes.gallery')}</option>
            </select>
          </label>
          {check(t('settings.singleClick'), d.singleClick, (v) => set({ singleClick: v }))}
          {check(t('settings.hideDotfiles'), d.hideDotfiles, (v) => set({ hideDotfiles: v }))}
          {check(t('settings.setDateFormat'), d.dateFormat, (v) => set({ dateFormat: v }))}
        </>
      )}
      {mode !== 'defaults' && check(t('settings.lockPassword'), d.lockPassword, (v) => set({ lockPassword: v }), admin, 'lockPassword')}
      <fieldset className="permissions">
        <legend className="fieldset-legend">{t('settings.permissions')}</legend>
        <p className="field-help">{t('settings.permissionsHelp')}</p>
        {PERMISSIONS.filter((p) => p !== 'execute' || exec).map((p) => (
          <label key={p} className="checkbox">
            <input
              type="checkbox"
              name={`perm-${p}`}
              checked={d.perm[p]}
              disabled={p !== 'admin' && admin}
              onChange={(e) => onChange(setPermission(d, p, e.target.checked))}
            />
            <span>{t(PERM_KEYS[p])}</span>
          </label>
        ))}
      </fieldset>
      {exec && (
        <label className="field">
          <span>{t('settings.commands')}</span>
          <input
            className="input"
            name="commands"
            spellCheck={false}
            aria-describedby={`${id}-cmd`}
            value={d.commands}
            onChange={(e) => set({ commands: e.target.value })}
          />
          <small className="field-help" id={`${id}-cmd`}>
            {t('settings.commandsHelp')}
          </small>
        </label>
      )}
      {mode !== 'defaults' && <RulesEditor rules={d.rules} onChange={(rules) => set({ rules })} />}
    </div>
  );
}
