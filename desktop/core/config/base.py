"""The base of every config section: camelCase on disk, snake_case accepted, unknown keys kept."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Base(BaseModel):
    """Base for every config section: camelCase aliases, snake_case accepted, extras kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        validate_assignment=True,
    )


class ChannelBase(Base):
    """Fields every chat channel has (nanobot's names).

    Attributes:
        kept_fields: Fields of nanobot's section this app reads and saves unchanged but does
            not use (Settings shows no control for them, only their names).
    """

    kept_fields: ClassVar[frozenset[str]] = frozenset()

    enabled: bool = Field(False, title="Enabled", description="Run this channel.")
    allow_from: list[str] = Field(
        default_factory=list,
        title="Allowed senders",
        description=(
            'Who may talk to the agent: ids (or "id|username"; a username alone never '
            'matches: it can change hands); "*" for everyone. Empty: nobody.'
        ),
    )
