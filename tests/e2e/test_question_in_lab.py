"""In JupyterLab + Chromium: the agent asks a question with AskUserQuestion; clicking an option in the
running cell answers it, and the answer reaches the model."""

from __future__ import annotations

from typing import Any

from lab import Lab, ScriptBox, ask_in_notebook, wait_cell_done

from jupyter_agent.testing import ScriptedServer, Text, ToolUse, Turn

QUESTION = {
    "questions": [
        {
            "question": "Which rows should the loader drop?",
            "header": "Rows",
            "options": [
                {"label": "Empty rows", "description": "rows where every value is missing"},
                {"label": "Duplicates", "description": "exact repeats of an earlier row"},
            ],
            "multiSelect": False,
        }
    ]
}


def test_clicking_an_option_answers_the_agents_question(
    page: Any, lab: Lab, model_server: tuple[ScriptedServer, ScriptBox]
) -> None:
    server, box = model_server
    box.set(
        [
            Turn(blocks=[Text("One question first."), ToolUse(name="AskUserQuestion", input=QUESTION)]),
            Turn(blocks=[Text("**Dropping duplicates** as you asked.")]),
        ],
        server,
    )
    output = ask_in_notebook(page, lab, "ask.ipynb", "Clean the sales data.")
    question = output.locator(".jp-agent-question")
    question.wait_for(timeout=60_000)
    assert "Which rows should the loader drop?" in question.inner_text()
    assert "exact repeats of an earlier row" in question.inner_text()
    question.locator("button.jupyter-button:has-text('Duplicates')").click()
    output.locator("text=Dropping duplicates").wait_for(timeout=60_000)
    wait_cell_done(page, 1)
    assert "Which rows should the loader drop? → Duplicates" in output.inner_text()
    answered = [
        b
        for b in server.requests[box.offset + 1]["messages"][-1]["content"]
        if b.get("type") == "tool_result"
    ]
    assert answered[0]["content"][0]["text"] == (
        'The user answered your questions: "Which rows should the loader drop?"="Duplicates". '
        "Continue with these answers in mind."
    )
