"""Worked examples, one module per variant: a scenario on a prepared wall, played by the
engine, so that docs/rules.md is generated from the engine and cannot drift."""
