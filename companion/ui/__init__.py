"""The Kivy kiosk. Only this package imports kivy."""
