"""Engram's Python SDK: `Engram` (sync) and `AsyncEngram` (async), typed with the service's models."""

from ._async.client import AsyncEngram, AsyncPartition
from ._async.owner import AsyncOwner
from ._core import ResponseEvent, RetryEvent
from ._errors import (
    APIError,
    ConfigurationError,
    Conflict,
    EngramConnectionError,
    EngramError,
    Gone,
    Internal,
    InvalidInput,
    MediaProcessingUnavailable,
    MethodNotAllowed,
    Misdirected,
    NotFound,
    PayloadTooLarge,
    ProviderError,
    RateLimited,
    RetryableAPIError,
    Unauthorized,
    Unavailable,
)
from ._models import (
    AssertFactOperation,
    BatchSearchResults,
    ConsolidationReport,
    Document,
    DocumentList,
    EmbedSearchResults,
    Entity,
    EntityList,
    ErasureAccepted,
    ErasureReceipt,
    Fact,
    FactList,
    FieldList,
    ForgetReport,
    ImportReport,
    Media,
    MemoryBatchResult,
    MemoryGraph,
    QueryDocuments,
    QueryGroup,
    QueryGroups,
    Relationship,
    RelationshipList,
    RetractFactOperation,
    RetractRelationshipOperation,
    SearchHit,
    SearchResults,
    Status,
    UpsertEntityOperation,
    UpsertRelationshipOperation,
)
from ._models import FieldModel as SchemaField
from ._operations import MemoryOperation
from ._sync.client import Engram, Partition
from ._sync.owner import Owner
from ._version import __version__

__all__ = [name for name in dir() if not name.startswith("_")] + ["__version__"]
