"""Site-wide Celery tasks."""

from __future__ import annotations

import platform
import sys

from celery import shared_task


@shared_task(name="web.platform_probe")  # its result is kept: config.celery.TASK_POLICY
def platform_probe() -> dict[str, str]:
    """Report what ``import platform`` resolved to inside the worker, to prove it is the stdlib module.

    Returns ``{"platform_file": <path>, "python_version": "3.11.x", "executable": <path>}``.
    """
    return {
        "platform_file": str(platform.__file__),
        "python_version": platform.python_version(),
        "executable": sys.executable,
    }
