"""Reading a ``numpy.savez`` archive (a model file, a checkpoint) that may come from anyone, with bounded
memory (docs/boosting.md#7-choosing-nu-re-weighting-a-forest-model-files).

``numpy.load`` of an archive decompresses every member it is asked for, whatever its size, and allocates
what each member's ``.npy`` header declares before reading it: a file of a few megabytes can hold a
member of zeros that inflates to gigabytes, or a header declaring the string dtype ``<U200000000``.
:class:`Archive` reads one member at a time, on request, and checks first, without allocating:

* the member's uncompressed size (``ZipInfo.file_size``, from the zip's directory) against a budget of
  bytes for the whole archive (each member read is charged to it) and against the caller's limit;
* its ``.npy`` header (``numpy.lib.format.read_magic`` and ``read_array_header_1_0`` / ``_2_0``, which
  read a few hundred bytes): a plain numeric or boolean dtype of the kinds the caller allows (never an
  object, string, structured or void dtype), at most ``max_size`` entries, and a shape whose bytes are
  exactly the bytes the member holds after its header;

then reads the data into one buffer of that size (the zip's CRC-32 is checked at the member's end).
Members that are never asked for are never decompressed. Every failure -- not a zip, a truncated or
corrupt member, a member absent, too large or of another dtype -- is an :class:`ArchiveError` (a
ValueError) saying which member and why; the caller names the file.
"""

from __future__ import annotations

import math
import os
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import IO

import numpy as np
from numpy.typing import NDArray

__all__ = ["Archive", "ArchiveError", "npy_header"]

#: the ``.npy`` header versions read (``numpy.save`` writes 1.0, or 2.0 for a header over 64 KiB)
_HEADER_READERS = {
    (1, 0): np.lib.format.read_array_header_1_0,
    (2, 0): np.lib.format.read_array_header_2_0,
}
#: the longest ``.npy`` header read (numpy's own default bound)
_MAX_NPY_HEADER = 10_000
#: what zipfile, zlib and numpy's header parser raise on a damaged member (RuntimeError: an encrypted
#: member; NotImplementedError: an unknown compression; SyntaxError: a header that is not a literal)
_READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    RuntimeError,
    NotImplementedError,
    SyntaxError,
)


class ArchiveError(ValueError):
    """A member of an :class:`Archive` cannot be read: the message says which and why; ``cause`` is the
    exception of zipfile, zlib or numpy behind it, if any."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


def npy_header(
    handle: IO[bytes],
    size: int,
    name: str,
    kinds: str,
    max_itemsize: int | None = None,
    records: tuple[np.dtype, ...] = (),
) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` of the ``.npy`` data of ``size`` bytes open in ``handle``, read
    from its header (the handle is left at the data) once it is known that the dtype is plain (not an
    object, structured or sub-array dtype) of one of the ``kinds`` (numpy's ``dtype.kind`` letters) and
    at most ``max_itemsize`` bytes an entry, or one of the structured dtypes ``records``, and that the
    shape's bytes are the bytes after the header; ArchiveError naming ``name`` otherwise. Nothing of the
    size of the data is allocated."""
    version = np.lib.format.read_magic(handle)
    if version not in _HEADER_READERS:
        raise ArchiveError(f"the member {name!r} has .npy format version {version}")
    shape, fortran, dtype = _HEADER_READERS[version](handle, max_header_size=_MAX_NPY_HEADER)
    plain = not dtype.hasobject and dtype.fields is None and dtype.subdtype is None
    too_long = max_itemsize is not None and dtype.itemsize > max_itemsize
    if dtype.hasobject:
        raise ArchiveError(f"the array {name!r} holds Python objects (dtype {dtype.str}): it is not read")
    if dtype.fields is not None and any(dtype == record for record in records):
        pass
    elif not plain or dtype.kind not in kinds or too_long:
        raise ArchiveError(f"the array {name!r} has the dtype {dtype.str}, not of the kinds {kinds}")
    shape = tuple(int(n) for n in shape)
    nbytes, held = math.prod(shape) * dtype.itemsize, size - handle.tell()
    if nbytes != held:
        raise ArchiveError(f"the array {name!r} declares {nbytes} bytes of data, its member holds {held}")
    return shape, bool(fortran), dtype


class Archive:
    """The members of the zip archive at ``path``, read on request within ``budget`` bytes in all.

    A context manager (the file stays open until it exits). ``budget``: the most bytes that the members
    read may decompress to, together; a member whose declared size does not fit in what is left is
    refused before it is decompressed.
    """

    def __init__(self, path: str | os.PathLike, *, budget: int) -> None:
        self.budget = int(budget)
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError) as exc:
            raise ArchiveError(f"not a zip archive ({type(exc).__name__}: {exc})", exc) from None

    def __enter__(self) -> Archive:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._zip.close()

    def names(self) -> list[str]:
        """The names of the archive's ``.npy`` members, without the suffix (nothing is read)."""
        return [name[:-4] for name in self._zip.namelist() if name.endswith(".npy")]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._member(name) is not None

    def _member(self, name: str) -> zipfile.ZipInfo | None:
        try:
            return self._zip.getinfo(f"{name}.npy")
        except KeyError:
            return None

    def _charge(self, name: str, size: int) -> None:
        if size > self.budget:
            raise ArchiveError(
                f"the member {name!r} holds {size} bytes, more than the {self.budget} bytes left to read "
                "from this file"
            )
        self.budget -= size

    @contextmanager
    def _reading(self, name: str) -> Iterator[None]:
        """A failure of zipfile, zlib or numpy's header parser while reading ``name``, as an ArchiveError."""
        try:
            yield
        except ArchiveError:
            raise
        except _READ_ERRORS as exc:
            raise ArchiveError(f"the member {name!r} is corrupt ({type(exc).__name__}: {exc})", exc) from None

    def array(self, name: str, *, kinds: str = "biuf", max_size: int | None = None) -> NDArray:
        """The array of the member ``name`` (``name.npy``), checked before it is allocated (module
        docstring): a dtype of one of the ``kinds`` (numpy's ``dtype.kind`` letters; ``b`` bool, ``i``,
        ``u`` integers, ``f`` floats, ``c`` complex) and at most ``max_size`` entries."""
        info = self._member(name)
        if info is None:
            raise ArchiveError(f"the array {name!r} is missing", KeyError(name))
        with self._reading(name), self._zip.open(info) as handle:
            shape, fortran, dtype = npy_header(handle, info.file_size, name, kinds)
            count = math.prod(shape)
            if max_size is not None and count > max_size:
                raise ArchiveError(
                    f"the array {name!r} has {count} entries, more than the {max_size} expected"
                )
            nbytes = count * dtype.itemsize
            self._charge(name, nbytes)
            buffer = bytearray(nbytes)
            view, done = memoryview(buffer), 0
            while done < nbytes:
                got = handle.readinto(view[done:])
                if not got:
                    raise ArchiveError(f"the member {name!r} is truncated")
                done += got
            handle.read(1)  # at the member's end: zipfile checks its CRC-32
        array = np.frombuffer(buffer, dtype=dtype, count=count)
        return array.reshape(shape, order="F" if fortran else "C")

    def bytes(self, name: str, *, limit: int) -> bytes:
        """The data of the ``uint8`` array ``name`` as bytes (at most ``limit`` of them)."""
        array = self.array(name, kinds="u", max_size=limit)
        if array.dtype.itemsize != 1 or array.ndim != 1:
            raise ArchiveError(
                f"the member {name!r} is not a byte string (dtype {array.dtype.str}, shape {array.shape})"
            )
        return array.tobytes()
