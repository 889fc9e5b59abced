/** The sandbox settings: defaults, validation, and a round trip through `config export`/`import`. */
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { exportConfig, parseConfigImport, parseDocument, serialiseDocument } from '../../src/cli/transfer.ts';
import { parseSettings } from '../../src/services/settings.ts';

describe('sandbox settings', () => {
  it('default to no network, 1 GiB of memory and file size, 128 processes', () => {
    expect(SettingsSchema.parse({})).toMatchObject({ execNetwork: false, execMaxMemory: 1024 ** 3, execMaxFileSize: 1024 ** 3, execMaxProcesses: 128 });
  });

  it('refuse negative or fractional limits with the field named', () => {
    expect(() => parseSettings({ execMaxProcesses: -1 })).toThrow(/execMaxProcesses/);
    expect(() => parseSettings({ execMaxMemory: 1.5 })).toThrow(/execMaxMemory/);
    expect(() => parseSettings({ execNetwork: 'yes' })).toThrow(/execNetwork/);
  });

  it('survive config export and import', () => {
    const original = parseSettings({ ...SettingsSchema.parse({}), execNetwork: true, execMaxMemory: 123, execMaxFileSize: 0, execMaxProcesses: 7 });
    const text = serialiseDocument(exportConfig(original), 'x.json');
    expect(parseSettings(parseConfigImport(parseDocument(text, 'x.json')).settings)).toEqual(original);
  });
});
