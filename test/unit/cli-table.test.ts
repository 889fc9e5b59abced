import { describe, expect, it } from 'vitest';
import { keyValues, table } from '../../src/cli/table.ts';

describe('aligned CLI output', () => {
  it('pads every column but the last to its widest cell', () => {
    const out = table(
      ['ID', 'USERNAME', 'ADMIN'],
      [
        [1, 'admin', true],
        [12, 'bob', false],
      ],
    );
    expect(out.split('\n')).toEqual(['ID  USERNAME  ADMIN', '1   admin     yes', '12  bob       no']);
  });

  it('keeps columns aligned with non-ASCII names and strips control characters', () => {
    const out = table(
      ['NAME', 'X'],
      [
        ['zoë', 'a'],
        ['evil\nname', 'b'],
      ],
    );
    expect(out.split('\n')).toEqual(['NAME       X', 'zoë        a', 'evil?name  b']);
  });

  it('aligns key: value lines', () => {
    expect(
      keyValues([
        ['a', 1],
        ['long key', 'v'],
        ['flag', false],
      ]),
    ).toBe('a:         1\nlong key:  v\nflag:      no');
  });
});
