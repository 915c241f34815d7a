"""Serving: gunicorn's gevent worker, one process unless told otherwise, on 127.0.0.1."""

from __future__ import annotations

import gc
from types import SimpleNamespace

import pytest
from gunicorn.workers.ggevent import GeventWorker

from app.cli import build_parser
from app.web import server


def test_serve_uses_gunicorn_gevent_with_a_greenlet_per_connection():
    options = server.options("127.0.0.1", 5000)
    assert options["bind"] == "127.0.0.1:5000"
    assert options["worker_class"] == "app.web.worker.LabWorker"  # gevent's, headers added
    assert options["workers"] == 1  # one process shares the rendered-step cache and the rooms
    assert options["worker_connections"] >= 5000
    assert 0 < options["keepalive"] <= 10  # how long a request head may take to arrive


def test_the_gunicorn_application_builds_the_app_in_the_worker_or_serves_a_given_one(app):
    given = server.LabServer(app, server.options("127.0.0.1", 0))
    assert given.load() is app
    assert issubclass(given.cfg.worker_class, GeventWorker)
    built = server.LabServer(None, server.options("127.0.0.1", 0, workers=3))
    assert built.cfg.workers == 3
    assert "lab" in built.load().extensions


def test_the_worker_freezes_what_it_loaded_so_a_full_collection_skips_it(app):
    # What gunicorn does in each worker once the app is loaded: cfg.post_worker_init(worker).
    config = server.LabServer(app, server.options("127.0.0.1", 0)).cfg
    thresholds = gc.get_threshold()
    gc.unfreeze()
    try:
        config.post_worker_init(SimpleNamespace(wsgi=app))
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_serve_binds_127_0_0_1_unless_told_and_takes_a_worker_count():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.workers) == ("127.0.0.1", 5000, 1)
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--workers", "4"])
    assert (args.host, args.workers) == ("0.0.0.0", 4)


def test_several_workers_need_a_shared_room_store():
    server.check(1, {})
    server.check(4, {"LAB_REDIS_URL": "redis://127.0.0.1:6379/0"})
    with pytest.raises(server.ServeError, match="LAB_REDIS_URL"):
        server.check(2, {})
    with pytest.raises(server.ServeError):
        server.check(0, {})


def test_the_banner_says_who_can_reach_the_lab():
    assert "only this machine" in server.banner("127.0.0.1", 5000, 1)
    wide = server.banner("0.0.0.0", 5000, 2)
    assert "every machine that can reach" in wide and "2 processes" in wide
