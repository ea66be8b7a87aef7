import { answerFor } from '../approvalKeys';

function key(init: KeyboardEventInit): KeyboardEvent {
  return {
    altKey: false,
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    key: '',
    ...init
  } as KeyboardEvent;
}

describe('approval keys', () => {
  it('Enter allows and Escape denies; with a modifier neither does', () => {
    expect(answerFor(key({ key: 'Enter' }), false)).toBe('allow');
    expect(answerFor(key({ key: 'Escape' }), false)).toBe('deny');
    expect(answerFor(key({ key: 'Enter', shiftKey: true }), false)).toBeNull();
    expect(answerFor(key({ key: 'a' }), false)).toBeNull();
  });

  it('Enter in the message field is the field’s; Escape there still denies', () => {
    expect(answerFor(key({ key: 'Enter' }), true)).toBeNull();
    expect(answerFor(key({ key: 'Escape' }), true)).toBe('deny');
  });
});
