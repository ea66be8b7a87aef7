import {
  agentModelId,
  parseStatic,
  STATIC_MIME,
  WIDGET_MIME,
  withoutWidget,
  withStatic
} from '../staticViews';

const display = {
  [WIDGET_MIME]: { model_id: 'm1', version_major: 2, version_minor: 0 },
  [STATIC_MIME]: { model_id: 'm1' },
  'text/plain': 'Review run 1\ncell 3 changed · not reviewed',
  'text/html': '<div>cell 3 changed · not reviewed</div>'
};

describe('static views', () => {
  it('knows an agent widget display by its marker, and nothing else', () => {
    expect(agentModelId(display)).toBe('m1');
    expect(agentModelId({ [WIDGET_MIME]: { model_id: 'm2' }, 'text/plain': 'a user widget' })).toBe(
      null
    );
  });

  it('drops only the widget view, so the static rendering shows', () => {
    expect(withoutWidget(display)).toEqual({
      [STATIC_MIME]: { model_id: 'm1' },
      'text/plain': display['text/plain'],
      'text/html': display['text/html']
    });
  });

  it('writes a newer static rendering, keeping a live widget and dropping a closed one', () => {
    const undone = parseStatic({
      type: 'static_view',
      model_id: 'm1',
      data: { 'text/plain': 'cell 3 changed · undone', 'text/html': '<div>undone</div>', x: 1 },
      live: true
    });
    expect(undone).not.toBeNull();
    const live = withStatic(display, undone!);
    expect(live?.[WIDGET_MIME]).toEqual(display[WIDGET_MIME]);
    expect(live?.['text/plain']).toBe('cell 3 changed · undone');
    expect(live).not.toHaveProperty('x');
    expect(withStatic(live!, undone!)).toBeNull(); // nothing changed: no rewrite
    const frozen = withStatic(display, { ...undone!, live: false });
    expect(frozen).not.toHaveProperty(WIDGET_MIME);
    expect(parseStatic({ type: 'review', model_id: 'm1' })).toBeNull();
  });
});
