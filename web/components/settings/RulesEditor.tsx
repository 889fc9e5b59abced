/** Allow/deny rules: each a path (relative to the scope) or a regular expression, chosen by the regex toggle (spec §5). */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { Rule } from '../../../src/api/user.ts';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';
import { emptyRule } from '../../lib/rules.ts';

export function RulesEditor({ rules, onChange }: { rules: Rule[]; onChange: (rules: Rule[]) => void }) {
  const { t } = useTranslation();
  const id = useId();
  const set = (i: number, r: Rule) => onChange(rules.map((x, j) => (j === i ? r : x)));
  return (
    <fieldset className="rules">
      <legend className="fieldset-legend">{t('settings.rules')}</legend>
      <p className="field-help">{t('settings.rulesHelp')}</p>
      {rules.length === 0 && <p className="card-muted">{t('settings.noRules')}</p>}
      <ol className="rules-list">
        {rules.map((rule, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a rule is its position in the list (two rules may be equal)
          <li key={i} className="rule">
            <select
              className="input rule-allow"
              aria-label={t('settings.ruleEffect')}
              value={rule.allow ? 'allow' : 'deny'}
              onChange={(e) => set(i, { ...rule, allow: e.target.value === 'allow' })}
            >
              <option value="allow">{t('settings.allow')}</option>
              <option value="deny">{t('settings.deny')}</option>
            </select>
            <label className="checkbox rule-regex">
              <input type="checkbox" checked={rule.regex} onChange={(e) => set(i, { ...rule, regex: e.target.checked })} />
              <span>{t('settings.regex')}</span>
            </label>
            <input
              className="input rule-value"
              id={`${id}-${i}`}
              aria-label={rule.regex ? t('settings.ruleRegexp') : t('settings.rulePath')}
              placeholder={rule.regex ? '^.*\\.secret$' : '/private'}
              spellCheck={false}
              value={rule.regex ? rule.regexp.raw : rule.path}
              onChange={(e) => set(i, rule.regex ? { ...rule, regexp: { raw: e.target.value } } : { ...rule, path: e.target.value })}
            />
            <IconButton icon="trash" label={t('settings.removeRule')} onClick={() => onChange(rules.filter((_, j) => j !== i))} />
          </li>
        ))}
      </ol>
      <button type="button" className="button button-flat rules-add" onClick={() => onChange([...rules, emptyRule()])}>
        <Icon name="plus" size={18} /> {t('settings.addRule')}
      </button>
    </fieldset>
  );
}
