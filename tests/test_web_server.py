"""Serving: gunicorn's threaded worker, configured for a classroom of websocket clients."""

from __future__ import annotations

from app.web import server


def test_serve_uses_gunicorn_gthread_with_a_thread_per_classroom_socket():
    options = server.options("127.0.0.1", 5000)
    assert options["bind"] == "127.0.0.1:5000"
    assert options["worker_class"] == "gthread"
    assert options["workers"] == 1  # one process shares the rendered-step cache
    assert options["threads"] >= 200


def test_the_gunicorn_application_serves_the_flask_app(app):
    lab = server.LabServer(app, server.options("127.0.0.1", 0))
    assert lab.load() is app
    assert lab.cfg.worker_class_str == "gthread"
    assert lab.cfg.threads == server.THREADS
