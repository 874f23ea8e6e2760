"""How every figure the engine returns was computed.

A procurement committee does not take a number on trust: each figure the engine returns
comes with an `Explanation` whose `formula` shows the arithmetic with the user's own numbers
substituted ("NT$350,000 × (1 − 0.20) = NT$280,000") and whose `source` names the rule or
price it rests on (seed rule T8, a datasheet, a price-list entry id).

Formulas write money and quantities with `app.engine.formatting` (re-exported here), the
one module every formula, chart and page formats numbers with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.engine.formatting import money, number, percent

__all__ = ["Explanation", "Operand", "money", "number", "operands", "percent"]


@dataclass(slots=True)
class Operand:
    """One named input of an explained figure: `name` is the identifier its expression uses
    ("gpus"), `value` the number (unrounded) and `unit` its unit ("FLOP/s", "GPUs", "")."""

    name: str
    value: float
    unit: str


@dataclass(slots=True)
class Explanation:
    """One computed figure and its derivation.

    figure: what the number is ("Monthly rent"); value: the number itself; unit: its unit
    ("TWD/month", "h/month", "kWh", "months"); formula: the arithmetic with the user's numbers
    substituted; source: the rule, datasheet or price-list entry the inputs come from.

    operands and expression make the figure reproducible: `expression` combines the operands
    by name with + - * / **, comparisons, `a if condition else b`, and the functions min,
    max, ceil, floor, sqrt, log2, log10 and step_up(x, s1, s2, …) — the first of the
    ascending sizes s1, s2, … that holds x, past the last its multiples (hardware comes in
    sizes) — and evaluates to `value`. Empty where a figure is not stated that way.
    """

    # Not frozen: an estimate builds a score of these, and a frozen dataclass's __init__ sets
    # each field through object.__setattr__, twice as slow. Nothing mutates one once made.
    # (The docstring above is the API schema's description: implementation notes go here.)

    figure: str
    value: float
    unit: str
    formula: str
    source: str
    operands: list[Operand] = field(default_factory=list)
    expression: str = ""

    def recomputed(self) -> float:
        """The value its expression gives from its operands (ValueError without one)."""
        from app.engine.expression import evaluate

        if not self.expression:
            raise ValueError(f"{self.figure} has no expression")
        return evaluate(self.expression, {o.name: o.value for o in self.operands})


def operands(**named: tuple[float, str]) -> list[Operand]:
    """Operands by keyword: `operands(gpus=(8, "GPUs"), tdp=(700, "W"))`."""
    return [Operand(name, float(value), unit) for name, (value, unit) in named.items()]
