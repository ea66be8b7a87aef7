import { askSource, outputReference } from '../askOutput';

describe('Ask the agent about this output', () => {
  it('refers to an output by its cell id and its number from 1', () => {
    expect(outputReference('ab12', 0)).toBe('@output:ab12:1');
    expect(outputReference('x-y_z', 4)).toBe('@output:x-y_z:5');
  });

  it('inserts a %%agent cell with the reference, ready for the question', () => {
    expect(askSource('@output:ab12:2')).toBe('%%agent\n@output:ab12:2 ');
  });
});
