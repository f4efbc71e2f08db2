"""The compact JSON encoder (agent_server/hooks/_json.py) writes exactly what
json.dumps would: hooks get the payload on stdin in this form."""

from __future__ import annotations

import datetime
import enum
import json
from typing import Any

import pytest

from agent_server.hooks._json import compact_encoder


class Color(enum.StrEnum):
    RED = "red"


VALUES: list[Any] = [
    {"session_id": "s", "tool_input": {"command": "ls -la", "n": 3}, "ok": True, "x": None},
    ["é", "\u2028", "\ud800", "\x00", "😀", 'quote " and \\ backslash'],
    [1.5, -0.0, 5e-324, 1e308, float("nan"), float("inf"), -float("inf"), 2**200],
    {1: "int key", 2.5: "float key", False: "bool key", None: "none key"},
    (1, 2),
    "a plain string",
    42,
    Color.RED,
]


@pytest.mark.parametrize("value", VALUES)
def test_same_text_as_json_dumps(value: Any) -> None:
    assert compact_encoder()(value) == json.dumps(value, separators=(",", ":"))


def test_default_is_used_for_other_values_and_without_it_they_are_refused() -> None:
    value = {"when": datetime.date(2026, 11, 22), "what": "plain"}
    expected = json.dumps(value, separators=(",", ":"), default=str)
    assert compact_encoder(default=str)(value) == expected
    with pytest.raises(TypeError):
        compact_encoder()({"when": datetime.date(2026, 11, 22)})


def test_a_circular_value_gets_jsons_own_error() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="Circular reference"):
        compact_encoder(default=str)(loop)
    assert compact_encoder()({"fine": [1]}) == '{"fine":[1]}'  # and it still works after
