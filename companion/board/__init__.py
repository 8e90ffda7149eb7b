"""Event mode: the tournament board server and the kiosk's outbox that feeds it."""
