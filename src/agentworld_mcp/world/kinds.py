"""The closed lists of names used across the package, one enum each (backends, record modes).

Below everything but :mod:`.errors`, so that settings, world models and the pytest plugin can
all use them without importing each other.
"""

from __future__ import annotations

from enum import Enum
from typing import Self

from ..errors import ConfigError


class _Choice(str, Enum):
    """A closed list of names, read from settings with an error that lists the choices."""

    @classmethod
    def parse(cls, value: str | _Choice, source: str) -> Self:
        try:
            return cls(value)
        except ValueError:
            raise ConfigError(f"unknown {cls.label()} {value!r} ({source}); use one of {', '.join(cls.names())}") from None

    @classmethod
    def names(cls) -> list[str]:
        return [m.value for m in cls]

    @classmethod
    def label(cls) -> str:
        """What one of these is called in messages."""
        return cls.__name__


class BackendKind(_Choice):
    """The world models a simulator can be configured with by name."""

    SCHEMA = "schema"  # the built-in deterministic model
    LLM = "llm"  # a language world model behind an OpenAI-compatible endpoint

    @classmethod
    def label(cls) -> str:
        return "backend"


class RecordMode(_Choice):
    """How a cassette records and replays, as in VCR.py."""

    ONCE = "once"  # record if the cassette is new, else replay only
    NEW_EPISODES = "new_episodes"  # replay what is there, record what is not
    NONE = "none"  # replay only; a miss is an error
    ALL = "all"  # always ask the model and re-record

    @classmethod
    def label(cls) -> str:
        return "record mode"


__all__ = ["BackendKind", "RecordMode"]
