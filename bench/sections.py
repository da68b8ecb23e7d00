"""The sections of bench/results.md that a benchmark run on its own writes (`write`) and
`python -m bench` keeps from the last such run (`kept`): each starts at its heading and ends
before the next ``## `` heading."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("results.md")


def write(heading: str, section: str) -> None:
    """Put `section` into results.md in place of the one under `heading` (else before See
    also)."""
    text = RESULTS.read_text()
    old = kept(heading, text)
    if old:
        text = text.replace(old, section)
    elif "\n## See also" in text:
        text = text.replace("\n## See also", f"\n{section}\n\n## See also", 1)
    else:
        text = f"{text.rstrip()}\n\n{section}\n"
    RESULTS.write_text(text)


def kept(heading: str, text: str | None = None) -> str:
    """The section under `heading` in results.md (or in `text`); empty when there is none."""
    text = RESULTS.read_text() if text is None else text
    start = text.find(heading)
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(heading))
    return text[start: end if end >= 0 else len(text)].rstrip()
