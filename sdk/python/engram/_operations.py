"""The operations of a memory batch (`owner.batch`): the generated models, one per `op`, and their JSON."""

from __future__ import annotations

from typing import Any, Mapping, Union

from pydantic import BaseModel

from ._core import body
from ._models import (AssertFactOperation, RetractFactOperation, RetractRelationshipOperation, UpsertEntityOperation,
                      UpsertRelationshipOperation)

# One write of a batch. Each model's `op` is its own default: `AssertFactOperation(predicate="city", value="Paris")`.
MemoryOperation = Union[UpsertEntityOperation, UpsertRelationshipOperation, AssertFactOperation,
                        RetractFactOperation, RetractRelationshipOperation]


def operation_json(operation: Union[MemoryOperation, Mapping[str, Any]]) -> dict[str, Any]:
    """An operation as sent: a model's fields the caller set, with its `op`; a mapping as given (datetimes
    as RFC 3339). A fact's `value` may be None (JSON null), so None is only left out of the other fields."""
    if isinstance(operation, BaseModel):
        return {"op": operation.op, **operation.model_dump(mode="json", exclude_unset=True)}  # type: ignore[attr-defined]
    fields = dict(operation)
    value = fields.pop("value", _ABSENT)
    json = body(**fields)
    if value is not _ABSENT:
        json["value"] = value
    return json


_ABSENT = object()
