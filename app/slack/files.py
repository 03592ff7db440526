"""Files shared in the message or its thread, read for the model: images (PNG, JPEG, GIF,
WebP) to look at, PDFs and text-like files (plain text, Markdown, CSV, logs, code) as
documents it cites. Downloaded only from Slack's file host, with the bot token
(`files:read`), within FILES_MAX_COUNT files and FILES_MAX_BYTES each; a file over a
limit, of another type, or that cannot be read is named to the model as not read, never a
crash. Contents never reach logs or telemetry: only counts, kinds, sizes and reasons.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from pypdf import PdfReader
from pypdf.errors import PyPdfError

from app.agent.conversation import FileKind, SharedFile, Unread
from app.errors import label

log = logging.getLogger("vouch.slack")

SLACK_FILE_HOST = "files.slack.com"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 3_750_000  # the API takes 5 MB of base64 per image
MAX_PDF_PAGES = 100  # the API's limit
MAX_TEXT_CHARS = 100_000  # of a text file given to the model
DOWNLOAD_WITHIN = 15.0  # seconds for one file
TEXT_TYPES = ("application/json", "application/xml", "application/x-yaml", "application/yaml")
TEXT_FILETYPES = frozenset(
    "text markdown md csv tsv log json yaml yml xml sql diff patch ini toml python javascript "
    "typescript go rust java kotlin ruby php shell bash c cpp csharp swift scala html css".split()
)
# What each kind of file starts with (an image must be what its type says).
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "application/pdf": (b"%PDF-",),
}


@dataclass(frozen=True, slots=True)
class FileLimits:
    count: int = 5  # files read per message (the newest first)
    max_bytes: int = 10_000_000  # per file
    kinds: frozenset[str] = frozenset({"image", "pdf", "text"})


class NotRead(Exception):
    """A file that is not read; `reason` is the fixed phrase the model is told."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FileReader:
    """Reads the files of a message and its thread, with the bot token, from Slack's file
    host (and from SLACK_API_URL's own host, for a test or a proxy set there)."""

    def __init__(
        self,
        token: str,
        limits: FileLimits,
        api_url: str,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self._token = token
        self._limits = limits
        self._session = session
        api_host = urlsplit(api_url).hostname or ""
        self._hosts = {SLACK_FILE_HOST} | ({api_host} if api_host != "slack.com" else set())

    async def read(
        self, shared: Sequence[dict[str, Any]]
    ) -> tuple[tuple[SharedFile, ...], tuple[Unread, ...]]:
        """The files read (in the order given: the message's, then the thread's newest
        first) and those not read, with why."""
        files = [f for f in shared if isinstance(f, dict)]
        wanted, over = files[: self._limits.count], files[self._limits.count :]
        results = await asyncio.gather(*(self._one(f) for f in wanted))
        read = tuple(r for r in results if isinstance(r, SharedFile))
        unread = [r for r in results if isinstance(r, Unread)]
        unread += [Unread(_name(f), "over the number of files read") for f in over]
        if files:
            kinds = ", ".join(f"{f.kind} {len(f.data) // 1024} KB" for f in read) or "none"
            reasons = ", ".join(sorted({u.reason for u in unread})) or "none"
            log.info(
                "files: %d read (%s); %d not read (%s)", len(read), kinds, len(unread), reasons
            )
        return read, tuple(unread)

    async def _one(self, file: dict[str, Any]) -> SharedFile | Unread:
        name = _name(file)
        try:
            kind, media_type = self._kind(file)
            data = await self._download(file, media_type)
            return await asyncio.to_thread(_read, file, name, kind, media_type, data)
        except NotRead as exc:
            return Unread(name, exc.reason)
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("file not downloaded: %s", label(exc))
            return Unread(name, "could not be downloaded")

    def _kind(self, file: dict[str, Any]) -> tuple[FileKind, str]:
        mimetype = str(file.get("mimetype") or "")
        filetype = str(file.get("filetype") or "")
        kind: FileKind
        if mimetype in IMAGE_TYPES:
            kind = "image"
        elif mimetype == "application/pdf":
            kind = "pdf"
        elif mimetype.startswith("text/") or mimetype in TEXT_TYPES or filetype in TEXT_FILETYPES:
            kind = "text"
        else:
            raise NotRead("not a type Vouch reads")
        if kind not in self._limits.kinds:
            raise NotRead(f"{kind} files are not read here")
        size = file.get("size")
        limit = min(self._limits.max_bytes, MAX_IMAGE_BYTES if kind == "image" else 1 << 62)
        if isinstance(size, int) and size > limit:
            raise NotRead("too large")
        return kind, mimetype

    async def _download(self, file: dict[str, Any], media_type: str) -> bytes:
        url = file.get("url_private_download") or file.get("url_private")
        if not isinstance(url, str) or urlsplit(url).hostname not in self._hosts:
            raise NotRead("not on Slack's file host")
        if urlsplit(url).scheme != "https" and urlsplit(url).hostname == SLACK_FILE_HOST:
            raise NotRead("not on Slack's file host")
        limit = self._limits.max_bytes
        headers = {"Authorization": f"Bearer {self._token}"}
        timeout = aiohttp.ClientTimeout(total=DOWNLOAD_WITHIN)
        session = self._session or aiohttp.ClientSession()
        try:
            async with session.get(url, headers=headers, timeout=timeout) as response:
                served = response.content_type
                if response.status != 200:
                    raise NotRead("could not be downloaded")
                if served == "text/html" and media_type != "text/html":
                    raise NotRead("not readable with Vouch's access")  # Slack's sign-in page
                data = await response.content.read(limit + 1)
        finally:
            if self._session is None:
                await session.close()
        if len(data) > limit:
            raise NotRead("too large")
        return data


def _read(
    file: dict[str, Any], name: str, kind: FileKind, media_type: str, data: bytes
) -> SharedFile:
    """The downloaded bytes as the model gets them (off the event loop: PDFs are parsed)."""
    file_id = str(file.get("id") or name)
    url = file.get("permalink") if isinstance(file.get("permalink"), str) else None
    if kind == "image":
        sniffed = _image_type(data)
        if sniffed is None:
            raise NotRead("unreadable")
        return SharedFile(file_id, name, kind, sniffed, data, url=url)
    if kind == "pdf":
        if not data.startswith(_MAGIC["application/pdf"]):
            raise NotRead("unreadable")
        return SharedFile(file_id, name, kind, "application/pdf", data, _pdf_text(data), url)
    text = data.decode("utf-8", errors="replace")
    if "\x00" in text:
        raise NotRead("unreadable")
    return SharedFile(file_id, name, kind, "text/plain", data, text[:MAX_TEXT_CHARS], url)


def _pdf_text(data: bytes) -> str:
    """The PDF's text, what its citations quote (the API cites the text it extracts)."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise NotRead("encrypted")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise NotRead(f"over {MAX_PDF_PAGES} pages")
        return "\n\n".join(page.extract_text() or "" for page in reader.pages)
    except (PyPdfError, ValueError, KeyError) as exc:  # a broken file
        raise NotRead("unreadable") from exc


def _image_type(data: bytes) -> str | None:
    for media_type in IMAGE_TYPES:
        if media_type == "image/webp":
            if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
                return media_type
        elif data.startswith(_MAGIC[media_type]):
            return media_type
    return None


RECORDED = (
    "id",
    "name",
    "title",
    "mimetype",
    "filetype",
    "size",
    "url_private",
    "url_private_download",
    "permalink",
)


def recorded(files: Any) -> list[dict[str, Any]]:
    """What the store keeps of a message's files: what reading them needs."""
    if not isinstance(files, list):
        return []
    return [{k: f[k] for k in RECORDED if k in f} for f in files[:20] if isinstance(f, dict)]


def _name(file: dict[str, Any]) -> str:
    name = file.get("name") or file.get("title") or "a file"
    return str(name)[:120]
