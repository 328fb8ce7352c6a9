"""``import platform`` is the standard library module everywhere: pytest, Django, a Celery worker.

``platform/`` (the Django project folder) is on sys.path but has no ``__init__.py``, so it is at most a
namespace-package portion and the stdlib ``platform.py`` wins.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import sysconfig
import uuid
from pathlib import Path

import pytest
from celery import Celery

from tests.conftest import skip_or_fail, tcp_reachable

ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
STDLIB_PLATFORM = str(STDLIB / "platform.py")

PROBE = "import json, platform; print(json.dumps([platform.__file__, platform.python_version()]))"


def test_repo_platform_folder_is_not_a_package() -> None:
    assert (ROOT / "platform" / "config" / "settings" / "__init__.py").exists()
    assert not (ROOT / "platform" / "__init__.py").exists()


def test_pytest_with_django_settings_loaded_sees_stdlib_platform(settings: object) -> None:
    from django.conf import settings as django_settings

    assert "accounts" in django_settings.INSTALLED_APPS  # Django is configured in this process
    assert str(Path(platform.__file__).resolve()) == STDLIB_PLATFORM
    assert platform.python_version() == "{}.{}.{}".format(*sys.version_info[:3])
    assert str(ROOT / "platform") in sys.path


def test_manage_py_shell_sees_stdlib_platform(subprocess_env: dict[str, str]) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            f"import django.conf; django.conf.settings.SECRET_KEY; {PROBE}",
        ],
        cwd=ROOT,
        env=subprocess_env,
        capture_output=True,
        text=True,
        check=True,
    )
    file, version = json.loads(out.stdout.strip().splitlines()[-1])
    assert str(Path(file).resolve()) == STDLIB_PLATFORM
    assert version == platform.python_version()


def run_probe_in_worker(broker: str, backend: str, env: dict[str, str], tmp_path: Path, queue: str) -> dict:
    """Start ``celery -A config worker`` on ``broker``, send ``web.platform_probe``, return its result."""
    env = {**env, "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": backend}
    log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "1", "-Q", queue,
         "-n", f"{queue}@%h", "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    # Not the current app: every later shared task of this process (the rating tasks of
    # tests/ratings/test_real_worker.py, under xdist) would send to this test's broker.
    client = Celery("probe-client", broker=broker, backend=backend, set_as_current=False)
    try:
        result = client.send_task("web.platform_probe", queue=queue)
        # Generous bound: only guards against a hung worker, nothing here measures speed.
        return result.get(timeout=120)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        log.close()
        print((tmp_path / "worker.log").read_text(errors="replace")[-3000:])


def test_celery_worker_sees_stdlib_platform_embedded_broker(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    broker = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    backend = f"db+sqlite:///{tmp_path / 'results.sqlite3'}"
    probe = run_probe_in_worker(broker, backend, subprocess_env, tmp_path, queue="probe")
    assert str(Path(probe["platform_file"]).resolve()) == STDLIB_PLATFORM
    assert probe["python_version"] == platform.python_version()
    assert Path(probe["executable"]).resolve() == Path(sys.executable).resolve()


def test_celery_worker_sees_stdlib_platform_redis_broker(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    import os

    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    if not tcp_reachable(url, 6379):
        skip_or_fail(f"Redis is not reachable at {url}")
    queue = f"probe-{uuid.uuid4().hex[:10]}"  # own queue: a running site's worker must not take the task
    probe = run_probe_in_worker(url, url, subprocess_env, tmp_path, queue=queue)
    assert str(Path(probe["platform_file"]).resolve()) == STDLIB_PLATFORM


@pytest.mark.django_db
def test_web_probe_task_runs_eagerly_in_process() -> None:
    from web.tasks import platform_probe

    assert platform_probe.apply().get()["platform_file"] == platform.__file__
