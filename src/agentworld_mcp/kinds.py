"""The closed lists of names used across the package, one enum each (backends, record modes).

Below everything but :mod:`.errors`, so that settings, world models and the pytest plugin can
all use them without importing each other.
"""

from __future__ import annotations

from enum import Enum

from .errors import ConfigError


class BackendKind(str, Enum):
    """The world models a simulator can be configured with by name."""

    SCHEMA = "schema"  # the built-in deterministic model
    LLM = "llm"  # a language world model behind an OpenAI-compatible endpoint

    @classmethod
    def parse(cls, value: str | BackendKind, source: str) -> BackendKind:
        try:
            return cls(value)
        except ValueError:
            raise ConfigError(f"unknown backend {value!r} ({source}); use one of {', '.join(cls.names())}") from None

    @classmethod
    def names(cls) -> list[str]:
        return [k.value for k in cls]


class RecordMode(str, Enum):
    """Cassette record modes, as in VCR.py."""

    ONCE = "once"  # record if the cassette is new, else replay only
    NEW_EPISODES = "new_episodes"  # replay what is there, record what is not
    NONE = "none"  # replay only; a miss is an error
    ALL = "all"  # always ask the model and re-record

    @classmethod
    def parse(cls, value: str | RecordMode, source: str) -> RecordMode:
        try:
            return cls(value)
        except ValueError:
            raise ConfigError(f"unknown record mode {value!r} ({source}); use one of {', '.join(cls.names())}") from None

    @classmethod
    def names(cls) -> list[str]:
        return [m.value for m in cls]


__all__ = ["BackendKind", "RecordMode"]
