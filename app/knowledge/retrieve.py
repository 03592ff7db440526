"""Per message: the passages of the team's docs worth giving Claude, as verification Sources.

The query is the new message followed by the most recent turns of the thread, so a
follow-up ("and how do I undo it?") still finds the docs its thread is about; the index
keeps the first 32 distinct words, the message's first.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass

from app.agent.conversation import Conversation
from app.errors import label
from app.knowledge.index import Index, Synced
from app.settings import Settings
from app.verify import Source

log = logging.getLogger("vouch.knowledge")

RECENT_TURNS = 2


@dataclass
class Knowledge:
    index: Index
    top_k: int
    floor: float

    @classmethod
    def open(cls, settings: Settings) -> Knowledge | None:
        """None without KNOWLEDGE_DIR; else the index, brought up to date with the folder
        (only files that changed are re-read). Never raises: a folder that has gone keeps
        the index as it was, and an index that cannot be used means no sources (logged)."""
        if settings.knowledge_dir is None:
            return None
        try:
            index = _up_to_date(settings)
        except (sqlite3.Error, OSError) as exc:  # OSError: e.g. its folder cannot be made
            log.error("knowledge: index unusable (%s); answering without sources", label(exc))
            return None
        return cls(index, settings.knowledge_top_k, settings.knowledge_min_relevance)

    def sources(self, conversation: Conversation) -> tuple[Source, ...]:
        """The top passages for the message (and recent turns) above the relevance floor;
        none when the index cannot be read (logged: the answer goes on without sources)."""
        recent = [turn.text for turn in reversed(conversation.turns[-RECENT_TURNS:])]
        try:
            return self.search(conversation.message, context="\n".join(recent))
        except sqlite3.Error as exc:
            log.error("knowledge: search failed (%s); answering without sources", label(exc))
            return ()

    def search(self, query: str, context: str = "") -> tuple[Source, ...]:
        """The top passages for `query` (helped by `context`, the thread's recent turns)
        above the relevance floor (raises sqlite3.Error)."""
        hits = self.index.search(query, self.top_k, self.floor, context=context)
        return tuple(
            Source(hit.passage.source_id, hit.passage.title, hit.passage.url, hit.passage.text)
            for hit in hits
        )

    def close(self) -> None:
        self.index.close()


def _up_to_date(settings: Settings) -> Index:
    """The index synced with KNOWLEDGE_DIR (logged); if the folder has gone, as it was."""
    started = time.perf_counter()
    try:
        index, synced = open_index(settings)
    except NotADirectoryError:
        folder = settings.knowledge_dir
        log.error("knowledge: %s is not a folder; answering from the index as it was", folder)
        return Index(settings.knowledge_index)
    took = time.perf_counter() - started
    log.info("knowledge: %s in %.2f s", summary(synced, index.count()), took)
    return index


def open_index(settings: Settings, rebuild: bool = False) -> tuple[Index, Synced]:
    """The index at KNOWLEDGE_INDEX brought up to date with KNOWLEDGE_DIR (or rebuilt). A
    file that is not a usable index is a broken cache: it is replaced and rebuilt. Errors
    that say the file is busy or not writable (OperationalError) are not corruption and
    are raised."""
    path = settings.knowledge_index
    try:
        return _synced(Index(path), settings, rebuild)
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as exc:
        log.warning("knowledge: index %s unreadable (%s); rebuilding it", path, label(exc))
    path.unlink(missing_ok=True)
    return _synced(Index(path), settings, rebuild=True)


def _synced(index: Index, settings: Settings, rebuild: bool) -> tuple[Index, Synced]:
    folder = settings.knowledge_dir
    if folder is None:
        raise ValueError("KNOWLEDGE_DIR is not set")
    update = index.rebuild if rebuild else index.sync
    try:
        return index, update(folder, settings.knowledge_base_url, settings.knowledge_max_file_bytes)
    except BaseException:
        index.close()
        raise


def summary(synced: Synced, passages: int) -> str:
    return (
        f"{len(synced.added)} files added, {len(synced.updated)} updated, "
        f"{len(synced.removed)} removed, {len(synced.skipped)} skipped, "
        f"{synced.unchanged} unchanged; {passages} passages"
    )
