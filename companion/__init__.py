"""TAKI Table Companion: a camera referee for real TAKI card games."""

__version__ = "0.2.0"
