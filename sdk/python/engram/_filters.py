"""The filters of the list and query routes, declared once for a method and its iterator."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any, Literal, Mapping, Sequence, Union

if sys.version_info >= (3, 11):
    from typing import TypedDict
else:  # Unpack[...] of a TypedDict needs typing_extensions' TypedDict before 3.11
    from typing_extensions import TypedDict

Timestamp = Union[str, datetime]


class EntityFilters(TypedDict, total=False):
    entity_type: str
    name: str  # display_name or an alias, case-insensitively


class RelationshipFilters(TypedDict, total=False):
    include_inactive: bool
    as_of: Timestamp
    from_entity_id: str
    to_entity_id: str
    relationship_type: str


class FactFilters(TypedDict, total=False):
    include_inactive: bool
    as_of: Timestamp
    subject_type: Literal["owner", "entity", "relationship"]
    subject_id: str
    predicate: str
    history: bool


class SearchOptions(TypedDict, total=False):
    k: int
    max_distance: float
    include_content: bool
    modality: Literal["text", "image", "audio"]


class QueryOptions(TypedDict, total=False):
    filter: Mapping[str, Any]
    sort: Sequence[Mapping[str, str]]
