"""House rules: every published default (D-...) as one option of a frozen RuleSet.

The defaults are the ones in TAKI_RULES.md; an organiser may flip any of them.
Each field's comment names the default it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class RuleSet:
    #: D-SETUP-3: keep turning cards up until a number card leads.
    first_lead_number: bool = True
    #: D-PLAY-4: a player may draw even when able to play.
    may_draw_when_able: bool = True
    #: D-PLAY-5: reshuffle the discard pile (less the leading card) when the draw pile ends.
    reshuffle_discard: bool = True
    #: D-END-2: nobody can finish on a Plus; they must draw.
    no_finish_on_plus: bool = True
    #: D-DIR-2P: with two players Change Direction acts as a Stop (default: it does nothing).
    direction_2p_stops: bool = False
    #: D-TAKI-6: a TAKI or Super TAKI on top of the pile is always open.
    taki_on_top_open: bool = True
    #: D-TAKI-5: the top card of an open run has no effect.
    open_run_no_effect: bool = True
    #: D-KING-3: the King's extra play is allowed, not compelled.
    king_extra_optional: bool = True
    #: D-PLUS3-2: a +3 opens a response window for Breakers and the next player's King.
    plus3_window: bool = True
    #: D-BREAK-3: a Breaker cannot be broken by another Breaker.
    breaker_on_breaker: bool = False
    #: D-COLOURLESS: after a colourless card (not Change Colour, not Super TAKI) the colour stays.
    colourless_keeps_colour: bool = True
    #: R-TOUR-1..3: one long game in eight stages.
    tournament: bool = False

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def changes(self) -> dict[str, bool]:
        """The options that differ from the published defaults."""
        default = RuleSet()
        return {
            name: getattr(self, name)
            for name in self.option_names()
            if getattr(self, name) != getattr(default, name)
        }

    def with_changes(self, **changes: bool) -> RuleSet:
        unknown = set(changes) - set(self.option_names())
        if unknown:
            raise ValueError(f"unknown house rule(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)


#: Which rule id each option stands for, for menus and the model card.
OPTION_RULES: dict[str, str] = {
    "first_lead_number": "D-SETUP-3",
    "may_draw_when_able": "D-PLAY-4",
    "reshuffle_discard": "D-PLAY-5",
    "no_finish_on_plus": "D-END-2",
    "direction_2p_stops": "D-DIR-2P",
    "taki_on_top_open": "D-TAKI-6",
    "open_run_no_effect": "D-TAKI-5",
    "king_extra_optional": "D-KING-3",
    "plus3_window": "D-PLUS3-2",
    "breaker_on_breaker": "D-BREAK-3",
    "colourless_keeps_colour": "D-COLOURLESS",
    "tournament": "R-TOUR-1",
}
