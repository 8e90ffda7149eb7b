"""The game journal (SQLite): append, replay, resume, tournaments."""

from .journal import Entry, GameInfo, Journal, JournalError, Replayed, replay

__all__ = ["Entry", "GameInfo", "Journal", "JournalError", "Replayed", "replay"]
