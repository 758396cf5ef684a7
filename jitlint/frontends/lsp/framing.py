"""Reading LSP frames (`Content-Length: N`, a blank line, N bytes of JSON) from a file
descriptor, so that no input can silence or crash the server.

- The descriptor is read with `os.read`, not through `sys.stdin`: a thread blocked in a
  buffered read holds the buffer's lock, and a process forked then (a worker pool)
  inherits it locked and hangs at its first touch of stdin.
- A header block without a usable `Content-Length` (missing, not a number, over
  `MAX_BODY`) is reported and skipped: the reader looks for the next `Content-Length:`
  header and goes on from there. A huge length is refused before anything is allocated.
- A body that is not JSON is reported and skipped. A length that is too long leaves the
  reader waiting for bytes the client never sends (it waits for our answer): after
  `STALL` seconds without new bytes, a complete JSON value at the start of what was read is
  taken as the message and the rest as the next frame (not on Windows, whose `select`
  cannot wait on a pipe).

Problems go to `report` (the server logs them); none is raised.
"""

from __future__ import annotations

import json
import os
import re
import select
from collections.abc import Callable
from typing import Any

MAX_BODY = 256 * 1024 * 1024  # bytes; a buffer is limited far below this (max-file-size)
MAX_HEADER = 8192  # bytes of one header block
STALL = 1.0  # seconds without a byte before a pending body is looked at
_CHUNK = 65536
_HEADER_START = re.compile(rb"content-length:", re.IGNORECASE)


class FrameReader:
    """`next()` returns each decoded JSON message, or None at end of input."""

    def __init__(self, fd: int, report: Callable[[str], None]) -> None:
        self.fd = fd
        self.report = report
        self._buffer = bytearray()
        self._eof = False

    # ---- bytes ----------------------------------------------------------------------------
    def _fill(self, timeout: float | None = None) -> bool:
        """Read more bytes; False at end of input, or when `timeout` passed without any."""
        if self._eof:
            return False
        if timeout is not None and os.name != "nt":  # select() takes no pipe on Windows
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return False
        try:
            chunk = os.read(self.fd, _CHUNK)
        except InterruptedError:
            return True
        except OSError as exc:
            self.report(f"cannot read the input: {exc}")
            chunk = b""
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    # ---- frames ---------------------------------------------------------------------------
    def next(self) -> Any:
        while True:
            headers = self._read_headers()
            if headers is None:
                return None
            length = self._content_length(headers)
            if length is None:
                self._resync()
                continue
            body = self._read_body(length)
            if body is None:
                return None
            try:
                return json.loads(body)
            except (ValueError, RecursionError) as exc:
                leading = _leading_value(body)
                if leading is not None:  # the length was too long: the rest is the next frame
                    value, end = leading
                    self._buffer[:0] = body[end:]
                    self.report(f"a message's Content-Length was {length}, its JSON ended at {end}")
                    return value
                self.report(f"a message is not valid JSON ({exc}); skipped")
                self._resync()

    def _read_headers(self) -> dict[str, str] | None:
        while True:
            end = self._buffer.find(b"\r\n\r\n")
            if end >= 0:
                block = bytes(self._buffer[:end])
                del self._buffer[: end + 4]
                headers = _parse_headers(block)
                start = _HEADER_START.search(block)
                if "content-length" not in headers and start is not None:
                    # Left-overs of a broken frame before the next one's headers.
                    self.report(f"skipped {start.start()} bytes before a message's headers")
                    headers = _parse_headers(block[start.start() :])
                return headers
            if len(self._buffer) > MAX_HEADER:
                self.report("a header block is too long or has no end; skipped")
                self._resync(skip=1)
                continue
            if not self._fill():
                if self._buffer.strip():
                    self.report("the input ended inside a message's headers")
                return None

    def _content_length(self, headers: dict[str, str]) -> int | None:
        value = headers.get("content-length")
        if value is None:
            self.report(f"a message has no Content-Length header ({_shown(headers)}); skipped")
            return None
        if not value.isdigit() or not value.isascii():
            self.report(f"a message's Content-Length is not a number ({value!r}); skipped")
            return None
        length = int(value)
        if length > MAX_BODY:
            self.report(
                f"a message's Content-Length is {length} bytes, over the "
                f"{MAX_BODY >> 20} MiB limit; skipped"
            )
            return None
        return length

    def _read_body(self, length: int) -> bytes | None:
        while len(self._buffer) < length:
            if self._fill(timeout=STALL):
                continue
            if self._eof:
                self.report("the input ended inside a message's body")
                return None
            recovered = self._recover(length)
            if recovered is not None:
                return recovered
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return body

    def _recover(self, length: int) -> bytes | None:
        """The client sent less than `length` bytes and waits: a JSON value that ends
        within what came is the message (its Content-Length was wrong)."""
        leading = _leading_value(bytes(self._buffer))
        if leading is None:
            return None
        end = leading[1]
        self.report(f"a message's Content-Length was {length}, its JSON ended at {end}")
        body = bytes(self._buffer[:end])
        del self._buffer[:end]
        return body

    def _resync(self, skip: int = 0) -> None:
        """Drop bytes up to the next `Content-Length:` header (or all but a possible
        partial one), reading more as needed."""
        del self._buffer[:skip]
        while True:
            found = _HEADER_START.search(self._buffer)
            if found is not None:
                del self._buffer[: found.start()]
                return
            keep = len(b"content-length:") - 1
            if len(self._buffer) > keep:
                del self._buffer[: len(self._buffer) - keep]
            if not self._fill():
                return


def _leading_value(data: bytes) -> tuple[Any, int] | None:
    """The JSON value at the start of `data` and the byte offset where it ends, if one
    does (an object or array: a bare number may just be cut short)."""
    text = data.decode("utf-8", "surrogateescape")  # the cut may split a character
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, (dict, list)):
        return None
    return value, len(text[:end].encode("utf-8", "surrogateescape"))


def _parse_headers(block: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    for line in block.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if colon:
            headers[name.strip().decode("latin-1").lower()] = value.strip().decode("latin-1")
    return headers


def _shown(headers: dict[str, str]) -> str:
    return ", ".join(f"{k}: {v}"[:80] for k, v in headers.items()) or "no headers"
