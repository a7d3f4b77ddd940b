"""Answers built through the API's models (`arena.league.models`).

An endpoint hands its data to `answer` with the model of its answer: the data is converted
to the model, strictly, and encoded from it. So an answer holds exactly the fields the
schema documents; a field the code adds but the model lacks is an error, not a silent leak.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from starlette.responses import Response

from arena.league.models import Model


def answer(model: type[Model], data: Mapping[str, Any], status: int = 200) -> Response:
    """`data` as `model` documents it, encoded as JSON with `status`; msgspec's
    ValidationError (a 500) if the data does not fit the model."""
    body = msgspec.json.encode(msgspec.convert(data, model))
    return Response(body, status_code=status, media_type="application/json")
