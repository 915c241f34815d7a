"""The scenario editor at /author (routes), its checks (checking), share links (share), the
preview's views (drawing) and saving into the instructor's library folder (shelf)."""

from app.web.author.routes import bp, init_app

__all__ = ["bp", "init_app"]
