"""The pure TAKI rules core: cards, state, events in, new state and rulings out.

Nothing here does IO, reads a clock or draws hidden randomness, so the referee,
the simulator and the tests all get the same answers (see TAKI_RULES.md).
"""

from .cards import FACES, Card, CardParseError, Color, Kind, copies, full_deck
from .engine import (
    Illegal,
    Step,
    apply,
    deal,
    is_legal,
    legal_faces,
    legal_moves,
    new_game,
    play_problem,
)
from .events import (
    CallLastCard,
    ChooseColor,
    CloseTaki,
    CorrectCount,
    Draw,
    EndTurn,
    Event,
    Play,
    Reveal,
    WindowClosed,
)
from .options import OPTION_RULES, RuleSet
from .rulings import Ruling, RulingKind
from .state import GameState, Mode, Pending, Phase, TakiRun

__all__ = [
    "FACES", "Card", "CardParseError", "Color", "Kind", "copies", "full_deck",
    "Illegal", "Step", "apply", "deal", "is_legal", "legal_faces", "legal_moves", "new_game", "play_problem",
    "CallLastCard", "ChooseColor", "CloseTaki", "CorrectCount", "Draw", "EndTurn", "Event",
    "Play", "Reveal", "WindowClosed", "OPTION_RULES", "RuleSet", "Ruling", "RulingKind",
    "GameState", "Mode", "Pending", "Phase", "TakiRun",
]
