"""The scripted server's strictness: the real Messages API's request rules, as Anthropic's docs state them.

One module per job: `models` (the model table), `params` (max_tokens, thinking, effort, sampling, tool_choice),
`turns` (roles, system messages, prefill, manual thinking), `blocks` (text, tool pairing), `images`, `tool_defs`
(tool definitions, cache breakpoints), `signing` / `binding` (thinking blocks bound to their conversation), `cache`
(prompt-cache usage), `canonical` (what the API compares), and `gate`, which runs them all for the server.
"""
