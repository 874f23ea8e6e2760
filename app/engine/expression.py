"""A tiny, safe evaluator for the expressions that explanations carry.

An `Explanation` states its figure as an expression over named operands
("flops / (gpus * peak_flops * mfu * goodput) / 86400"), so anyone can recompute it. This
module evaluates such an expression without `eval`: it parses it with `ast` and walks only
numbers, operand names, + − × ÷ **, comparisons (< <= > >= == !=), `and` / `or` / `not`,
the conditional `a if cond else b` (for a figure that is a choice, e.g. the tier or a rounded
hardware size) and the functions in `FUNCTIONS` (`round_half_up(x, places)`: money rounded
once to the currency's unit, as the figure is printed and added); anything else is a
`ValueError`. Used by
the reproduction test and by anything that re-checks a figure.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from decimal import ROUND_HALF_UP, Decimal


def step_up(value: float, *steps: float) -> float:
    """The first of the ascending `steps` that holds `value`; past the last, its multiples
    (a DIMM configuration, a network uplink: hardware comes in sizes)."""
    if not steps:
        raise ValueError("step_up needs at least one step")
    for s in steps:
        if s >= value - 1e-9:
            return s
    return steps[-1] * math.ceil(value / steps[-1])


def round_half_up(value: float, places: float = 0) -> float:
    """`value` rounded to `places` decimals, halves away from zero (2.5 → 3, −2.5 → −3), as
    a quote rounds money (app.quotes.pricing.round_money), never Python's round-half-even.

    Float noise is taken off first (904,396.7999999999 is 904,396.8), so a product
    that is a half in exact arithmetic rounds up as it does by hand."""
    exact = Decimal(repr(round(value, 6)))
    return float(exact.quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP))


def _least(*values: float) -> float:
    """min of one or more operands: `min(option_1)` (one cost option) is that option (the
    built-in wants an iterable for a single argument and raised)."""
    return min(values)


def _most(*values: float) -> float:
    """max of one or more operands, as `_least`."""
    return max(values)


FUNCTIONS: dict[str, Callable[..., float]] = {
    "step_up": step_up,
    "min": _least,
    "max": _most,
    "log2": math.log2,
    "log10": math.log10,
    "sqrt": math.sqrt,
    "ceil": math.ceil,
    "floor": math.floor,
    "round_half_up": round_half_up,
}
_COMPARE: dict[type[ast.cmpop], Callable[[float, float], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def evaluate(expression: str, values: Mapping[str, float]) -> float:
    """The value of `expression` with each name bound to `values[name]`.

    Raises ValueError for a syntax error, an unknown name or any construct other than
    arithmetic and the whitelisted functions (no attribute access, no calls of names
    outside `FUNCTIONS`, no comprehension): the input is never executed.
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as e:
        raise ValueError(f"not an expression: {expression!r}") from e
    return float(_eval(tree.body, values))


def _eval(node: ast.expr, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise ValueError(f"unknown operand {node.id!r}")
        return float(values[node.id])
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _eval(node.operand, values)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return float(not _eval(node.operand, values))
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        left = _eval(node.left, values)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, values)
            if not _COMPARE[type(op)](left, right):
                return 0.0
            left = right
        return 1.0
    if isinstance(node, ast.BoolOp):
        # Short-circuit like Python, but over numbers: `and` is the first falsy operand (else
        # the last), `or` the first truthy one (else the last).
        v = 0.0
        for operand in node.values:
            v = _eval(operand, values)
            if isinstance(node.op, ast.And) != bool(v):
                return v
        return v
    if isinstance(node, ast.IfExp):
        branch = node.body if _eval(node.test, values) else node.orelse
        return _eval(branch, values)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and not node.keywords
    ):
        args = [_eval(a, values) for a in node.args]
        try:
            return float(FUNCTIONS[node.func.id](*args))
        except TypeError as e:  # wrong number of arguments
            raise ValueError(f"{node.func.id}: {e}") from e
    raise ValueError(f"unsupported in an expression: {ast.dump(node)[:60]}")
