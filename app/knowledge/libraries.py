"""The team's docs per channel: CHANNELS_FILE may give a channel a knowledge folder of its
own. Each folder has its own index file beside KNOWLEDGE_INDEX (named by a hash of the
folder's path), brought up to date when first needed — at start for the folders the file
names then, on a channel's first message for a folder added later — and kept open."""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

from app.knowledge.retrieve import Knowledge
from app.settings import Settings

log = logging.getLogger("vouch.knowledge")


class Libraries:
    """Knowledge by folder, opened once each."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._open: dict[Path, Knowledge | None] = {}
        self._lock = threading.Lock()  # opened from worker threads

    def get(self, folder: Path) -> Knowledge | None:
        """The folder's knowledge (None: it cannot be used; logged by Knowledge.open).
        Blocking on first use: the folder is indexed (call it from a thread)."""
        folder = folder.resolve()
        with self._lock:
            if folder not in self._open:
                self._open[folder] = Knowledge.open(self._settings_for(folder))
            return self._open[folder]

    def opened(self, folder: Path) -> Knowledge | None:
        """The folder's knowledge if already open (never blocks), else None."""
        return self._open.get(folder.resolve())

    def close(self) -> None:
        with self._lock:
            for knowledge in self._open.values():
                if knowledge is not None:
                    knowledge.close()
            self._open.clear()

    def _settings_for(self, folder: Path) -> Settings:
        index = self._settings.knowledge_index
        digest = hashlib.sha256(str(folder).encode()).hexdigest()[:12]
        path = index.with_name(f"{index.stem}-{digest}{index.suffix}")
        return self._settings.model_copy(update={"knowledge_dir": folder, "knowledge_index": path})
