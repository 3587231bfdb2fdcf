"""The security model and the operator guide say what the terminal approval channel cannot stop (SPEC §8):
an agent with a shell running as the operator's user can fake a terminal; and they advise running agent
shells as another user or in a sandbox."""

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def said(name: str) -> str:
    return " ".join((DOCS / name).read_text(encoding="utf-8").split()).casefold()


@pytest.mark.parametrize("name", ["security-model.md", "operator-guide.md"])
def test_the_docs_say_an_agent_shell_can_fake_a_terminal_and_advise_another_user_or_a_sandbox(name: str):
    text = said(name)

    assert "an agent with a shell" in text or "an agent that has a shell" in text
    assert "fake a controlling terminal" in text or "fake a terminal" in text
    assert "run agent shells as another user or in a sandbox" in text
