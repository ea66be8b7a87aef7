import { isAgentRequest } from '../agentCells';

describe('isAgentRequest', () => {
  it('is a cell that starts with %%agent, after blank lines, flags or not', () => {
    expect(isAgentRequest('%%agent\nfix the loader')).toBe(true);
    expect(isAgentRequest('\n  %%agent --mode plan\nlook')).toBe(true);
    expect(isAgentRequest('%%agent')).toBe(true);
  });

  it('is not Python, a one-line %agent, or a longer magic name', () => {
    expect(isAgentRequest('x = 1\n%%agent')).toBe(false);
    expect(isAgentRequest('%agent why')).toBe(false);
    expect(isAgentRequest('%%agentic\n')).toBe(false);
  });
});
