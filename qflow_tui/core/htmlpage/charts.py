"""Charts as inline SVG drawn by qflow (no library, nothing fetched): bars
with 95% interval whiskers, and a histogram. Each chart is an image with a
text alternative; its figures are also in a table beside it, so nothing is
told by the drawing alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..escape import htmltext as h


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    """Percent (0-100) or any figure, per the chart's scale; None: no figure."""
    low: float | None = None
    high: float | None = None


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if abs(x) < 1000 else f"{x:,.0f}"


def bars(title: str, items: Sequence[Bar], top: float = 100.0, unit: str = "%") -> str:
    """A vertical bar per item with its interval drawn as a whisker; ``top`` the scale's top."""
    n = max(1, len(items))
    slot = max(36, min(90, 900 // n))
    left, right, plot_h, base = 48, 16, 220, 250
    width = left + slot * n + right
    label_rot = n > 8 or any(len(b.label) * 7 > slot for b in items)
    height = base + (110 if label_rot else 40)
    top = top if top > 0 else 1.0
    out = [
        f'<svg class="chart" role="img" aria-label="{h.text(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg"><title>{h.text(title)}</title>'
    ]
    for i in range(5):
        y = base - plot_h * i / 4
        out.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(top * i / 4)}{h.text(unit)}</text>')
    out.append(f'<line class="axis" x1="{left}" x2="{left}" y1="{base - plot_h}" y2="{base}"/>')

    def y_of(v: float) -> float:
        return base - plot_h * max(0.0, min(v, top)) / top

    for i, b in enumerate(items):
        x = left + slot * i + slot * 0.15
        w = slot * 0.7
        cx = x + w / 2
        if b.value is not None:
            y = y_of(b.value)
            out.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{base - y:.1f}"/>')
            out.append(f'<text x="{cx:.1f}" y="{y - 4:.1f}" text-anchor="middle">{_fmt(b.value)}</text>')
        if b.low is not None and b.high is not None:
            y1, y2 = y_of(b.low), y_of(b.high)
            out.append(f'<line class="whisker" x1="{cx:.1f}" x2="{cx:.1f}" y1="{y1:.1f}" y2="{y2:.1f}"/>')
            for yy in (y1, y2):
                out.append(f'<line class="whisker" x1="{cx - 5:.1f}" x2="{cx + 5:.1f}" y1="{yy:.1f}" y2="{yy:.1f}"/>')
        if label_rot:
            out.append(
                f'<text x="{cx:.1f}" y="{base + 12}" text-anchor="end" transform="rotate(-40 {cx:.1f} {base + 12})">'
                f"{h.text(b.label[:28])}</text>"
            )
        else:
            out.append(f'<text x="{cx:.1f}" y="{base + 16}" text-anchor="middle">{h.text(b.label[:16])}</text>')
    out.append("</svg>")
    return "".join(out)


def histogram(title: str, values: Sequence[float], unit: str, bins: int = 20) -> str:
    """How many problems fall in each range of ``values`` (tokens, dollars)."""
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / span * bins))] += 1
    most = max(counts)
    left, plot_h, base, slot = 48, 180, 200, 36
    width = left + slot * bins + 16
    out = [
        f'<svg class="chart" role="img" aria-label="{h.text(title)}" viewBox="0 0 {width} 250" width="{width}" '
        f'height="250" xmlns="http://www.w3.org/2000/svg"><title>{h.text(title)}</title>'
    ]
    out.append(f'<line class="axis" x1="{left}" x2="{width - 16}" y1="{base}" y2="{base}"/>')
    out.append(f'<text x="{left - 6}" y="{base - plot_h + 4}" text-anchor="end">{most}</text>')
    out.append(f'<text x="{left - 6}" y="{base + 4}" text-anchor="end">0</text>')
    for i, c in enumerate(counts):
        if not c:
            continue
        bh = plot_h * c / most
        x = left + slot * i + 2
        out.append(
            f'<rect class="bar2" x="{x}" y="{base - bh:.1f}" width="{slot - 4}" height="{bh:.1f}">'
            f"<title>{c} problems from {_fmt(lo + span * i / bins)} to {_fmt(lo + span * (i + 1) / bins)} "
            f"{h.text(unit)}</title></rect>"
        )
    out.append(f'<text x="{left}" y="{base + 18}">{_fmt(lo)} {h.text(unit)}</text>')
    out.append(f'<text x="{width - 16}" y="{base + 18}" text-anchor="end">{_fmt(hi)} {h.text(unit)}</text>')
    out.append(f'<text x="{left}" y="{base + 40}">problems per range ({bins} ranges)</text>')
    out.append("</svg>")
    return "".join(out)
