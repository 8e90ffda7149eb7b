"""The referee loop: camera events and taps in, rulings out, journalled first."""

from .loop import Question, Referee, RefereeError

__all__ = ["Question", "Referee", "RefereeError"]
