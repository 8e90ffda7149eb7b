"""The kiosk's own words (buttons, labels, the table's status lines) as catalogue messages.

The kv files keep their English texts; :data:`FIXED` lists them so they are
extracted into the catalogues and the app swaps each for its translation when
the language changes. The table's changing lines are filled in from the
messages below. No kivy here: tests check the catalogues without a window.
"""

from __future__ import annotations

from ..voice.catalog import tr, trn

#: Every fixed text of the kv files (a test checks the kv files against it).
FIXED = (
    # table.kv
    tr("Drew a card"), tr("Last card!"), tr("Closed TAKI!"), tr("Done\n(end turn)"), tr("Everyone drew\n(+3)"),
    tr("Undo"), tr("Enter a\ncard"), tr("Mute"), tr("Unmute"), tr("Red"), tr("Yellow"), tr("Green"), tr("Blue"),
    tr("Who played\nthat?"), tr("Fix the\ncard"), tr("Fix a\ncount"), tr("Standings"), tr("Seats"),
    # setup.kv
    tr("TAKI Table Companion"), tr("Players"), tr("Youngest (starts)"), tr("Tournament (8 stages)"),
    tr("Teaching mode"), tr("Language"), tr("Voice speed"), tr("Deck"), tr("Default deck"),
    tr("House rules (the published defaults are ticked as printed)"), tr("Learn a deck"), tr("Start the game"),
    tr("Event board"), tr("Event key"), tr("Table"),
    # standings.kv
    tr("Export CSV"), tr("Export JSON"), tr("Back to the table"),
    # enrol.kv
    tr("The card wanted:"), tr("Back"), tr("Redo the last"), tr("Skip (not in my deck)"), tr("Learn the deck"),
)

TURN = tr("{name}'s turn")
FIRST_CARD = tr("Turn up the first card")
MUTE, UNMUTE = tr("Mute"), tr("Unmute")
CLOCKWISE = tr("Clockwise (left)")
ANTICLOCKWISE = tr("Anticlockwise (right)")
LEADING = tr("Leading: {card}")
HOLDS = trn("{count} card", "{count} cards")
WINS = tr("{name} wins!")
STACK = trn("+2 stack: {name} draws {count}", "+2 stack: {name} draws {count}")
PLUS3 = tr("+3! Break it, or everyone draws three")
CHOOSE = tr("{name}: choose a colour")
PLUS = tr("Plus: play another card")
KING = tr("King: play any card")
RUN_OPEN = tr("{colour} TAKI open")
RUN_GOING = tr("{colour} TAKI running")
LAST = tr("{name}: last card?")
CAN_PLAY = tr("{name}\ncan play:")
NO_SPEECH = tr("Speech unavailable ({error}); rulings are shown here.")

# Popups and the card picker
WHO_TITLE = tr("Who played that?")
WHO_BREAKER = tr("Who played the plus three Breaker?")
NO_OWNER = tr("No card is waiting for an owner.")
CLOSE = tr("Close")
COUNT_TITLE = tr("Correct a hand count")
COUNT_NOTE = tr("Type the number of cards in the hand, then Set.")
SET = tr("Set")
DONE = tr("Done")
NOW_HOLDS = trn("{name} now holds {count} card.", "{name} now holds {count} cards.")
UNSAVED_TITLE = tr("The game is not being saved")
UNSAVED_NOTE = tr("{problem}.\nThe game goes on. Save it to another file?")
SAVE_THERE = tr("Save there")
KEEP_UNSAVED = tr("Keep playing unsaved")
MISSED_TITLE = tr("The camera missed something")
MISSED_NOTE = tr("The camera was off. Now the {card} is on top.\nWhat was played while it was off?")
ONLY_THE = tr("Only the\n{card}")
ONE_BY_ONE = tr("Enter the cards\none by one")
PICK_FIRST = tr("Which card was turned up first?")
PICK_PUT = tr("Which card was put down?")
PICK_NOTE = tr("Tap the card now on top of the pile. Bright ones can be played now.")
FIX_TITLE = tr("Not the {card}? Which card was it?")
FIX_NOTE = tr("Tap the card really on top of the pile: it replaces the misread one.")
CANCEL = tr("Cancel")
NO_FIX = tr("No card to fix: the last thing that happened was not a card put down.")
SEAT_PROMPT = tr("Tap the ring where {name} sits, as the camera sees the table.")

# The standings screen
NO_GAME = tr("No game yet.")
STAGE = tr("stage {stage}")
WINNER = tr("winner")
SAVED = tr("Saved: {path}")
NOT_SAVED_STANDINGS = tr("Could not save the standings ({error}).")

# Learn a deck (the rest of its words are the guide's: companion/training/guided.py)
FACES_DONE = tr("{done} of {total} faces ({taken} taken, {skipped} skipped)")
SAVED_AS = tr("Saved as {profile}")
STILL_LOADING = tr("The card reader is still loading: a moment, please.")
NO_READER = tr("No card reader: {error}")
NO_CAMERA = tr("{error}: plug a camera in to learn a deck")
