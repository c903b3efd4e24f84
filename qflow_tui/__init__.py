"""qflow-tui: watch and steer LLM program synthesis (QualityFlow) in the terminal."""

__version__ = "0.1.0"
