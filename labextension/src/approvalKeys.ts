/**
 * The agent's approval widget (`.jp-agent-approval`, ipywidgets) answered from the keyboard,
 * and announced to a screen reader.
 *
 * - A new approval takes the focus, unless the person is typing somewhere (a field, a cell with
 *   text): then it waits to be tabbed or clicked into.
 * - On the focused approval, Enter allows once and Escape denies. JupyterLab handles keys at the
 *   document in the capture phase (Enter would enter edit mode on the notebook), so this listens
 *   on the window, before it. Enter in the approval's own text field stays that field's (it sends
 *   "Deny with message"); Escape there still denies.
 * - A polite ARIA live region says "Approval waiting: …" when one appears, and each approval is a
 *   labelled group.
 */
export const APPROVAL = '.jp-agent-approval';
const SEEN = 'agentSeen';
const LIVE_ID = 'jp-agent-live-region';

/** The element that would take a typed key: an editor, a field, anything editable. */
export function isTyping(element: Element | null): boolean {
  if (element === null) {
    return false;
  }
  const tag = element.tagName.toLowerCase();
  return (
    tag === 'input' ||
    tag === 'textarea' ||
    tag === 'select' ||
    (element as HTMLElement).isContentEditable === true ||
    element.closest('.cm-editor') !== null
  );
}

/** The answer a key gives on a focused approval, or null when the key is not one of its shortcuts. */
export function answerFor(event: KeyboardEvent, inField: boolean): 'allow' | 'deny' | null {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
    return null;
  }
  if (event.key === 'Escape') {
    return 'deny';
  }
  return event.key === 'Enter' && !inField ? 'allow' : null;
}

/**
 * Whether taking the focus would interrupt the person: they are in a field, or in a cell editor
 * with text in it. The empty cell Shift+Enter leaves below the last one is not typing.
 */
export function wouldInterrupt(element: Element | null): boolean {
  if (!isTyping(element)) {
    return false;
  }
  const editor = element?.closest('.cm-editor');
  return !editor || (editor.querySelector('.cm-content')?.textContent ?? '').trim() !== '';
}

function liveRegion(): HTMLElement {
  let region = document.getElementById(LIVE_ID);
  if (region === null) {
    region = document.createElement('div');
    region.id = LIVE_ID;
    region.className = 'jp-agent-live-region';
    region.setAttribute('role', 'status');
    region.setAttribute('aria-live', 'polite');
    document.body.append(region);
  }
  return region;
}

function onKey(event: KeyboardEvent): void {
  const target = event.target instanceof Element ? event.target : null;
  const approval = target?.closest(APPROVAL);
  if (!approval) {
    return;
  }
  const answer = answerFor(event, isTyping(target));
  if (answer === null) {
    return;
  }
  const button = approval.querySelector<HTMLButtonElement>(
    answer === 'allow' ? '.jp-agent-allow-once' : '.jp-agent-deny'
  );
  if (button === null || button.disabled) {
    return;
  }
  event.preventDefault();
  event.stopImmediatePropagation();
  button.click();
}

function greet(approval: HTMLElement): void {
  approval.dataset[SEEN] = '1';
  const heading = approval.querySelector('[role="heading"]');
  const question = heading?.textContent?.trim() || 'the agent asks for approval';
  approval.setAttribute('role', 'group');
  approval.setAttribute('aria-label', `Approval: ${question}`);
  approval.tabIndex = -1;
  liveRegion().textContent = `Approval waiting: ${question} Enter allows once, Escape denies.`;
  if (!wouldInterrupt(document.activeElement)) {
    approval.focus({ preventScroll: false });
  }
}

/** Watch the page for approvals; see the module docstring. */
export function addApprovalKeys(): void {
  window.addEventListener('keydown', onKey, true);
  let queued = false;
  const look = (): void => {
    queued = false;
    document.querySelectorAll<HTMLElement>(`${APPROVAL}:not([data-agent-seen])`).forEach(greet);
  };
  new MutationObserver(() => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(look);
    }
  }).observe(document.body, { childList: true, subtree: true });
}
