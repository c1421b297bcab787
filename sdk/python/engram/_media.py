"""Turns a file path or bytes into the media route's body: base64, content type and modality.

The content type comes from the caller, else from the bytes' magic number (the service checks that the
two agree), else from the file name's extension.
"""

from __future__ import annotations

import base64
import mimetypes
import os
from pathlib import Path
from typing import Optional, Union

from ._errors import ConfigurationError

MediaSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

# (offset, magic, content type); the accepted types of DECISIONS.md "Media and documents".
_MAGIC: list[tuple[int, bytes, str]] = [
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"\xff\xfb", "audio/mpeg"),
    (0, b"\xff\xf3", "audio/mpeg"),
    (0, b"\xff\xf2", "audio/mpeg"),
    (0, b"fLaC", "audio/flac"),
    (0, b"OggS", "audio/ogg"),
    (0, b"\x1a\x45\xdf\xa3", "audio/webm"),
]


def sniff_content_type(data: bytes) -> Optional[str]:
    for offset, magic, content_type in _MAGIC:
        if data[offset:offset + len(magic)] == magic:
            return content_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[4:8] == b"ftyp":
        return "audio/mp4"
    return None


def media_fields(source: MediaSource, content_type: Optional[str], filename: Optional[str],
                 modality: Optional[str]) -> dict[str, str]:
    """`data_base64`, `content_type`, `modality` and (for a path) `filename` for POST /v1/memory/media."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        path = Path(source)
        data = path.read_bytes()
        filename = filename or path.name
    content_type = content_type or sniff_content_type(data) or (mimetypes.guess_type(filename)[0] if filename else None)
    if not content_type:
        raise ConfigurationError("cannot tell the media's content type: pass content_type='image/png' (or another)")
    modality = modality or content_type.split("/", 1)[0]
    if modality not in ("image", "audio"):
        raise ConfigurationError(f"media must be an image or audio: got content type {content_type}")
    fields = {"data_base64": base64.b64encode(data).decode("ascii"), "content_type": content_type, "modality": modality}
    if filename:
        fields["filename"] = filename
    return fields
