"""The README's two commands stay true: .ci/run runs exactly its test command."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = text.split("```sh\n")[1:3]
    return [b.split("\n```")[0].strip() for b in blocks]


def test_readme_starts_with_the_two_commands() -> None:
    run, test = _readme_commands()
    assert run.endswith("python -m app")
    assert test.endswith("python -m pytest")
    assert (ROOT / "README.md").read_text().lstrip().splitlines()[2] == "```sh"


def test_ci_runs_the_readme_test_command() -> None:
    _, test = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci
