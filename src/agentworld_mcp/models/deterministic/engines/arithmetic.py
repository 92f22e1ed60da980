"""Arithmetic and statistics tools computed, not invented: Python's math, statistics and decimal.

Which tools. A tool is claimed from its definition alone: every word of its name is
arithmetic vocabulary (``add``, ``divide``, ``square root``, ``mean``, ``standard deviation``,
``percentage``, ``convert``...; fillers such as ``value``, ``numbers``, ``calculate`` aside)
and every argument is numeric (a number, a list of numbers, a precision, a unit name), or
the tool takes one expression string and is named for calculating (``calculate(expression)``).
``add_label`` or ``calculate_total_price(order_id)`` are not arithmetic.

How it answers. Values are computed as a Python server computes them (``a / b``, the naive
mean, population standard deviation unless the description says *sample*); a precision
argument of a logarithm or square root is honoured with mpmath (when installed) or
decimal, printed with the digits asked for. A description's "rounded to N decimal
places" is applied. The answer takes the tool's shape: the outputSchema's ``result`` (or
only numeric) property, else the number as text. A ``number`` property gets a JSON number
even where a Python server would send a high-precision number's text: an MCP client
checks structured content against the schema.

Expressions are parsed with :mod:`ast` and only numbers, arithmetic operators, and
:mod:`math`'s functions and constants are evaluated, with bounded sizes: nothing is
``eval``-ed. Errors are worded as a Python server words them (``division by zero``,
``Unknown identifier: x``, ``math domain error``), inside FastMCP's ``Error executing
tool NAME: ...`` where the catalog's schemas are FastMCP's.

The engine keeps no state: arithmetic depends on the call alone.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from collections.abc import Callable
from decimal import Decimal, localcontext
from typing import Any

from ....world.catalog import ToolSpec
from ....world.world import World
from ...base import Prediction, Step

JSONDict = dict[str, Any]
Number = int | float

#: Name words that say nothing about the operation (``si unit conversion``, ``sum values``).
_FILLER = {"value", "values", "number", "numbers", "num", "nums", "of", "the", "a", "an", "two", "list", "calculate",
           "compute", "get", "find", "do", "perform", "si", "unit", "units", "imperial", "metric", "to", "and",
           "math", "tool", "numeric", "float", "floats", "integers", "integer", "set", "data", "array"}

#: Operation -> the name words that ask for it.
_WORDS: dict[str, set[str]] = {
    "add": {"add", "addition", "plus"},
    "sub": {"subtract", "subtraction", "minus", "difference"},
    "mul": {"multiply", "multiplication", "times", "product"},
    "div": {"divide", "division", "quotient"},
    "pow": {"power", "pow", "exponent", "exponentiate", "exponentiation"},
    "sqrt": {"sqrt", "square", "root"},
    "log": {"log", "logarithm", "ln", "log10", "log2"},
    "mean": {"mean", "average", "avg", "arithmetic"},
    "median": {"median"},
    "mode": {"mode"},
    "stdev": {"standard", "deviation", "stdev", "std", "stddev", "sd"},
    "variance": {"variance", "var"},
    "percentage": {"percentage", "percent", "pct"},
    "min": {"min", "minimum", "smallest", "lowest"},
    "max": {"max", "maximum", "largest", "highest"},
    "sum": {"sum", "total"},
    "round": {"round", "rounding", "rounded"},
    "abs": {"abs", "absolute"},
    "factorial": {"factorial"},
    "mod": {"mod", "modulo", "modulus", "remainder"},
    "convert": {"convert", "conversion", "converter"},
    "expression": {"calculator", "calc", "evaluate", "eval", "expression", "solve", "calculation", "arithmetic"},
}
#: Argument names that set how many digits (not an operand).
_DIGITS = {"precision", "decimal_places", "decimals", "digits", "places", "ndigits", "decimal_digits", "dp"}
_EXPRESSION_ARGS = {"expression", "expr", "formula", "equation", "input", "calculation", "math"}
_SOURCE_UNIT = re.compile(r"(^|_)(in|from|source|input|src)(_|$)|^from", re.IGNORECASE)
_TARGET_UNIT = re.compile(r"(^|_)(out|to|target|output|dest)(_|$)|^to", re.IGNORECASE)
_MAX_EXPRESSION = 1000
_MAX_BITS = 100_000  # integers past this are refused (``9 ** 9 ** 9`` would take the server's memory)
_MAX_FACTORIAL = 5000


class CalculationFailed(Exception):
    """The computation failed (division by zero, a bad expression); the message is the server's."""


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _type_of(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind if isinstance(kind, str) else None


def _is_numeric(schema: Any) -> bool:
    return _type_of(schema) in ("number", "integer")


def _is_number_list(schema: Any) -> bool:
    return _type_of(schema) == "array" and _is_numeric((schema or {}).get("items"))


def _operation(tool: ToolSpec) -> str | None:
    """The operation ``tool`` computes, or None when it is not an arithmetic tool."""
    words = [w for w in _words(tool.name) if w not in _FILLER]
    props: JSONDict = tool.input_schema.get("properties") or {}
    if not props:
        return None
    strings = [n for n, s in props.items() if _type_of(s) == "string"]
    found = {op for op, vocabulary in _WORDS.items() for w in words if w in vocabulary}
    if not words and {"calculate", "compute"} & set(_words(tool.name)):
        found = {"expression"}
    if any(not any(w in vocabulary for vocabulary in _WORDS.values()) for w in words):
        return None  # a word that is not arithmetic: add_label, get_average_rating
    if len(found) > 1:  # ``square root`` is sqrt, ``arithmetic mean`` is mean
        found -= {"expression"} if len(found - {"expression"}) >= 1 else set()
    if len(found) != 1:
        return None
    op = found.pop()
    if op == "expression":
        names = [n for n in strings if n.lower() in _EXPRESSION_ARGS]
        return "expression" if len(names) == 1 and len(props) == 1 else None
    for name, schema in props.items():
        if _is_numeric(schema) or _is_number_list(schema):
            continue
        if op == "convert" and _type_of(schema) == "string" and (_SOURCE_UNIT.search(name) or _TARGET_UNIT.search(name)):
            continue
        return None  # a non-numeric argument: not arithmetic
    numeric = [n for n, s in props.items() if (_is_numeric(s) or _is_number_list(s)) and n.lower() not in _DIGITS]
    if not numeric or any(_words(n)[-1:] in (["id"], ["ids"]) for n in numeric):
        return None  # ``product(id)`` looks something up; it does not multiply
    if op == "convert" and (len(strings) != 2 or not _speaks_of_units(tool)):
        return None  # currencies and encodings are converted too, but not by arithmetic
    return op


def _speaks_of_units(tool: ToolSpec) -> bool:
    props: JSONDict = tool.input_schema.get("properties") or {}
    text = " ".join([tool.name, tool.description or ""] + [f"{n} {(s or {}).get('description') or ''}"
                                                         for n, s in props.items() if isinstance(s, dict)])
    return re.search(r"unit|celsius|fahrenheit|meter|metre|\bkg\b|gram|pound|mile|liter|litre|gallon",
                     text, re.IGNORECASE) is not None


def claims(world: World, tool: ToolSpec) -> bool:
    """Whether ``tool`` is an arithmetic, statistics or unit-conversion tool (see the module doc)."""
    return _operation(tool) is not None


# -- computing ------------------------------------------------------------------------------------


def predict(step: Step) -> Prediction | None:
    op = _operation(step.tool)
    if op is None:
        return None
    try:
        value = _expression_value(step) if op == "expression" else _compute(op, step)
    except CalculationFailed as exc:
        return _failure(step, str(exc))
    except OverflowError:  # a float past its range (a square of 1e200): the server's own computation fails so too
        return _failure(step, "Numerical result out of range")
    return _answer(step, _rounded(step, value))


def _args(step: Step) -> tuple[list[tuple[str, Any]], list[Any] | None, int | None]:
    """The call's scalar operands (in the schema's order), its list of numbers, and its digits argument."""
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    scalars: list[tuple[str, Any]] = []
    numbers: list[Any] | None = None
    digits: int | None = None
    for name, schema in props.items():
        if name not in step.arguments:
            if isinstance(schema, dict) and "default" in schema and name.lower() in _DIGITS:
                digits = schema["default"]
            continue
        given = step.arguments[name]
        if name.lower() in _DIGITS:
            if isinstance(given, (int, float)) and not isinstance(given, bool):
                digits = int(given)
            continue
        if _is_number_list(schema):
            numbers = given if isinstance(given, list) else None
        elif _is_numeric(schema):
            scalars.append((name, given))
    return scalars, numbers, digits


def _number(value: Any, message: str) -> Number:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CalculationFailed(message)
    return value


def _pair(scalars: list[tuple[str, Any]]) -> tuple[Number, Number]:
    if len(scalars) < 2:
        raise CalculationFailed("Both inputs must be numbers")
    return (_number(scalars[0][1], "Both inputs must be numbers"), _number(scalars[1][1], "Both inputs must be numbers"))


def _named(scalars: list[tuple[str, Any]], *names: str) -> Any:
    return next((v for n, v in scalars if n.lower() in names), None)


_OP_NAMES = {"mean": "mean", "median": "median", "mode": "mode", "stdev": "standard deviation",
             "variance": "variance", "min": "minimum", "max": "maximum", "sum": "sum", "mul": "product",
             "add": "sum"}


def _compute(op: str, step: Step) -> Any:
    scalars, numbers, digits = _args(step)
    if numbers is not None and op in _OP_NAMES:
        return _statistic(op, numbers, step.tool.description)
    if op == "sum" and len(scalars) >= 2:  # "the sum of two numbers" (a, b): an addition
        op = "add"
    if op in ("add", "sub", "mul", "div", "mod"):
        a, b = _pair(scalars)
        if op in ("div", "mod") and b == 0:
            raise CalculationFailed("Cannot divide by zero")
        return {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
                "mod": operator.mod}[op](a, b)
    if op == "pow":
        base = _named(scalars, "base", "x", "number", "value")
        exponent = _named(scalars, "exponent", "power", "exp", "n", "y")
        if base is None or exponent is None:
            base, exponent = _pair(scalars)
        return _power(_number(base, "Both inputs must be numbers"), _number(exponent, "Both inputs must be numbers"))
    if op == "percentage":
        return _percentage(scalars)
    if op == "convert":
        return _convert(step, scalars)
    if not scalars:
        raise CalculationFailed("Input must be a number")
    x = _number(scalars[0][1], "Input must be a number")
    if op == "sqrt":
        if x < 0:
            raise CalculationFailed("Cannot calculate square root of a negative number")
        if digits is not None and digits > 0:
            with localcontext() as ctx:
                ctx.prec = min(digits, 1000)
                return Decimal(x).sqrt()
        return math.sqrt(x)
    if op == "log":
        base = _named(scalars, "base")
        return _log(x if scalars[0][0].lower() != "base" else scalars[-1][1], base, digits)
    if op == "abs":
        return abs(x)
    if op == "round":
        return round(x, digits or 0)
    if op == "factorial":
        if not isinstance(x, int) or x < 0 or x > _MAX_FACTORIAL:
            raise CalculationFailed("factorial() only accepts integral values up to "
                                   f"{_MAX_FACTORIAL}" if isinstance(x, int) and x >= 0 else
                                   "factorial() not defined for negative or non-integral values")
        return math.factorial(x)
    raise CalculationFailed("Input must be a number")


def _statistic(op: str, numbers: list[Any], description: str) -> Any:
    if not numbers:
        raise CalculationFailed(f"Cannot calculate {_OP_NAMES[op]} of an empty list")
    values = [_number(v, "All elements in the list must be numbers") for v in numbers]
    if op in ("sum", "add"):
        return sum(values)
    if op == "mul":
        return math.prod(values)
    if op == "min":
        return min(values)
    if op == "max":
        return max(values)
    mean = sum(values) / len(values)  # the naive mean, bit for bit as servers compute it
    if op == "mean":
        return mean
    import statistics

    if op == "median":
        return statistics.median(values)
    if op == "mode":
        return statistics.mode(values)
    sample = re.search(r"\bsample\b", description, re.IGNORECASE) is not None
    if sample and len(values) < 2:
        raise CalculationFailed(f"{_OP_NAMES[op]} requires at least two data points")
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1 if sample else len(values))
    return variance if op == "variance" else math.sqrt(variance)


def _power(base: Number, exponent: Number) -> Any:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        if max(base.bit_length(), 1) * exponent > _MAX_BITS and abs(base) > 1:
            raise CalculationFailed("result too large")
    try:
        return base ** exponent
    except ZeroDivisionError as exc:
        raise CalculationFailed(str(exc)) from exc
    except OverflowError as exc:
        raise CalculationFailed(exc.args[1] if len(exc.args) > 1 else str(exc)) from exc


def _log(value: Any, base: Any, digits: int | None) -> Any:
    x = _number(value, "Input must be a number")
    b = _number(base, "Input must be a number") if base is not None else math.e
    if x <= 0 or b <= 0 or b == 1:
        raise CalculationFailed("math domain error")
    if digits is not None and digits > 0:  # a precision asked for: arbitrary precision, as text
        try:
            import mpmath  # type: ignore[import-untyped]
        except ImportError:
            with localcontext() as ctx:
                ctx.prec = min(digits, 1000)
                return Decimal(x).ln() / Decimal(b).ln()
        with mpmath.workdps(min(digits, 1000)):  # printed inside: the digits asked for, not the default's
            return Decimal(str(mpmath.log(x) / mpmath.log(b)))
    return math.log(x, b) if base is not None else math.log(x)


def _percentage(scalars: list[tuple[str, Any]]) -> Any:
    names = [n.lower() for n, _ in scalars]
    rate = next((v for n, v in scalars if n.lower() in ("percent", "percentage", "rate", "pct")), None)
    if rate is not None:  # ``percentage(value=200, percent=15)``: 15 % of 200
        whole = next(v for n, v in scalars if n.lower() not in ("percent", "percentage", "rate", "pct"))
        return _number(whole, "Both inputs must be numbers") * _number(rate, "Both inputs must be numbers") / 100
    part, whole = _pair(scalars)
    if "whole" in names or "total" in names:
        part = _number(_named(scalars, "part", "value", "portion", "amount") or part, "Both inputs must be numbers")
        whole = _number(_named(scalars, "whole", "total") or whole, "Both inputs must be numbers")
    if whole == 0:
        raise CalculationFailed("Whole value cannot be zero")
    return (part / whole) * 100


# -- units ----------------------------------------------------------------------------------------

#: Unit -> (dimension, factor to the dimension's base unit); temperature is affine, handled apart.
_UNITS: dict[str, tuple[str, float]] = {}
for _names, _dim, _factor in (
        (("km", "kilometer", "kilometers", "kilometre", "kilometres"), "length", 1000.0),
        (("m", "meter", "meters", "metre", "metres"), "length", 1.0),
        (("cm", "centimeter", "centimeters", "centimetre", "centimetres"), "length", 0.01),
        (("mm", "millimeter", "millimeters", "millimetre", "millimetres"), "length", 0.001),
        (("um", "µm", "micrometer", "micrometers", "micron", "microns"), "length", 1e-6),
        (("nm", "nanometer", "nanometers"), "length", 1e-9),
        (("mi", "mile", "miles"), "length", 1609.344),
        (("yd", "yard", "yards"), "length", 0.9144),
        (("ft", "foot", "feet"), "length", 0.3048),
        (("in", "inch", "inches"), "length", 0.0254),
        (("kg", "kilogram", "kilograms"), "mass", 1.0),
        (("g", "gram", "grams"), "mass", 0.001),
        (("mg", "milligram", "milligrams"), "mass", 1e-6),
        (("t", "tonne", "tonnes"), "mass", 1000.0),
        (("lb", "lbs", "pound", "pounds"), "mass", 0.45359237),
        (("oz", "ounce", "ounces"), "mass", 0.028349523125),
        (("l", "liter", "liters", "litre", "litres"), "volume", 1.0),
        (("ml", "milliliter", "milliliters", "millilitre", "millilitres"), "volume", 0.001),
        (("gal", "gallon", "gallons"), "volume", 3.785411784),
        (("qt", "quart", "quarts"), "volume", 0.946352946),
        (("pt", "pint", "pints"), "volume", 0.473176473),
        (("floz", "fl_oz", "fluid_ounce", "fluid_ounces"), "volume", 0.0295735295625)):
    for _name in _names:
        _UNITS[_name] = (_dim, _factor)
_TEMPERATURE = {"c": "c", "celsius": "c", "degc": "c", "f": "f", "fahrenheit": "f", "degf": "f",
                "k": "k", "kelvin": "k"}


def _unit(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("°", "deg")


def _convert(step: Step, scalars: list[tuple[str, Any]]) -> Any:
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    strings = [n for n, s in props.items() if _type_of(s) == "string"]
    source_arg = next((n for n in strings if _SOURCE_UNIT.search(n)), strings[0])
    target_arg = next((n for n in strings if n != source_arg), strings[-1])
    unit_in, unit_out = str(step.arguments.get(source_arg, "")), str(step.arguments.get(target_arg, ""))
    if not scalars:
        raise CalculationFailed("Value must be a number")
    value = _number(scalars[0][1], "Value must be a number")
    a, b = _unit(unit_in), _unit(unit_out)
    if a == b:
        return value
    if a in _TEMPERATURE and b in _TEMPERATURE and not (a in _UNITS or b in _UNITS):
        kelvin = {"c": lambda v: v + 273.15, "f": lambda v: (v - 32) * 5 / 9 + 273.15, "k": lambda v: v}
        back = {"c": lambda v: v - 273.15, "f": lambda v: (v - 273.15) * 9 / 5 + 32, "k": lambda v: v}
        return back[_TEMPERATURE[b]](kelvin[_TEMPERATURE[a]](value))
    if a not in _UNITS or b not in _UNITS or _UNITS[a][0] != _UNITS[b][0]:
        raise CalculationFailed(f"Conversion from '{unit_in}' to '{unit_out}' is not supported")
    return value * _UNITS[a][1] / _UNITS[b][1]


# -- expressions ----------------------------------------------------------------------------------

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_NAMES: dict[str, Any] = {k: getattr(math, k) for k in dir(math) if not k.startswith("_")}
_BOUNDED_ARGS = {"factorial", "comb", "perm"}


def _evaluate(expression: str) -> Any:
    """The value of an arithmetic expression: numbers, operators, math's functions; nothing else runs."""
    if len(expression) > _MAX_EXPRESSION:
        raise CalculationFailed(f"expression too long (at most {_MAX_EXPRESSION} characters)")
    text = expression.replace("^", "**").replace("×", "*").replace("÷", "/")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise CalculationFailed(str(exc)) from exc
    except (RecursionError, MemoryError, ValueError) as exc:
        raise CalculationFailed("expression too deeply nested") from exc
    try:
        return _node(tree.body)
    except RecursionError as exc:
        raise CalculationFailed("expression too deeply nested") from exc
    except ZeroDivisionError as exc:
        raise CalculationFailed(str(exc)) from exc
    except (ValueError, OverflowError, TypeError) as exc:
        raise CalculationFailed(str(exc.args[-1]) if isinstance(exc, OverflowError) and exc.args else str(exc)) from exc


def _node(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in _NAMES:
            return _NAMES[node.id]
        raise CalculationFailed(f"Unknown identifier: {node.id}")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _node(node.left), _node(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return _power(left, right)
        if isinstance(node.op, ast.Mult) and isinstance(left, int) and isinstance(right, int) \
                and left.bit_length() + right.bit_length() > _MAX_BITS:
            raise CalculationFailed("result too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_node(node.operand)
    if isinstance(node, ast.Call) and not node.keywords:
        func = _node(node.func)
        args = [_node(arg) for arg in node.args]
        if not callable(func):
            raise CalculationFailed(f"'{type(func).__name__}' object is not callable")
        name = getattr(func, "__name__", "")
        if name in _BOUNDED_ARGS and any(isinstance(a, int) and abs(a) > _MAX_FACTORIAL for a in args):
            raise CalculationFailed("result too large")
        return func(*args)
    raise CalculationFailed(f"Unsupported operation: {ast.dump(node)}")


def _expression_value(step: Step) -> Any:
    props: JSONDict = step.tool.input_schema.get("properties") or {}
    name = next(n for n in props if n.lower() in _EXPRESSION_ARGS)
    expression = step.arguments.get(name)
    if not isinstance(expression, str):
        raise CalculationFailed(f"{name} must be a string")
    return _evaluate(expression)


# -- answering ------------------------------------------------------------------------------------

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "zero": 0}
_ROUNDED = re.compile(r"(?:round(?:ed|s)?|to)\s+(?:to\s+)?(\d+|one|two|three|four|five|six|zero)\s+decimal\s+"
                      r"(?:places?|digits?)", re.IGNORECASE)


def _rounded(step: Step, value: Any) -> Any:
    """``value`` rounded as the description says ("rounded to 2 decimal places")."""
    match = _ROUNDED.search(step.tool.description or "")
    if match is None or not isinstance(value, float):
        return value
    word = match.group(1).lower()
    return round(value, int(word) if word.isdigit() else _NUMBERS[word])


def _fastmcp(tool: ToolSpec) -> bool:
    """Whether the tool's schemas are FastMCP's (``<name>Arguments``), whose failures it words itself."""
    return str(tool.input_schema.get("title") or "") == f"{tool.name}Arguments"


def _failure(step: Step, message: str) -> Prediction:
    if _fastmcp(step.tool):
        return Prediction(f"Error executing tool {step.tool.name}: {message}", is_error=True, effects=[])
    if step.tool.output_schema:  # a structured tool's failure object, as its ``{"error": ...}`` dict prints
        return Prediction(json.dumps({"error": message}), is_error=True, effects=[])
    return Prediction(message, is_error=True, effects=[])


def _plain(value: Any) -> Any:
    """A computed value as a JSON number (an arbitrary-precision one rounded to a float: a client checks the
    outputSchema's ``number``); what no JSON number holds (``inf``) as its text."""
    number = float(value) if isinstance(value, Decimal) else value
    if isinstance(number, (int, float)) and not isinstance(number, bool):
        return number if math.isfinite(number) else str(value)
    return str(value)


def _answer(step: Step, value: Any) -> Prediction:
    out = step.tool.output_schema
    props: JSONDict = (out or {}).get("properties") or {}
    if not props:
        return Prediction(str(value), effects=[])
    name = "result" if "result" in props else next(
        (n for n, s in props.items() if _type_of(s) in ("number", "integer", "string")), None)
    if name is None:
        return Prediction(str(value), effects=[])
    kind = _type_of(props[name])
    plain = _plain(value)
    if kind == "string":
        plain = str(value)
    elif kind == "integer" and isinstance(plain, float) and plain.is_integer():
        plain = int(plain)
    body = {name: plain}
    return Prediction(body, text=json.dumps(body), effects=[])


__all__ = ["claims", "predict"]
