"""The old name of `protocol.features`, kept so that policy bots written against it still run.

Every name of `protocol.features` reads here as well, the same object, and `encode` is
`features.encode_observation`: `from protocol.encoding import CALL, Steps, encode` keeps
working. New code imports `protocol.features`.
"""

from __future__ import annotations

from typing import Any

from protocol import features


def __getattr__(name: str) -> Any:
    if name == "encode":
        return features.encode_observation
    return getattr(features, name)


def __dir__() -> list[str]:
    return [*dir(features), "encode"]
