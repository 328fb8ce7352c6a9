"""The channel layer: channels-redis with batched group sends on ``REDIS_URL`` (production), channels'
in-memory layer otherwise (one Daphne process)."""

from __future__ import annotations

from typing import Any

from config.settings.environment import REDIS_URL

# channels_redis waits for a consumer's next message with a blocking pop of
# ``RedisChannelLayer.brpop_timeout`` (5 s) and loops. redis-py 8 gives every connection a 5 s read
# timeout by default, which cut that wait short: each idle socket was closed with 1011 ("Timeout reading
# from ...") every ~5 s (issue 8; redis-py#4091, channels_redis#422). So the read timeout is set
# explicitly, well above the pop's (tests/platform/test_channel_layer.py checks that), and still bounded
# so a half-open connection to a dead Redis is noticed.
CHANNEL_LAYER_SOCKET_TIMEOUT = 15
CHANNEL_LAYER_PROCESS_CAPACITY = 20_000
"""Messages a Daphne process's Redis queue may hold (all its sockets together; they expire after 60 s)."""
CHANNEL_LAYERS: dict[str, dict[str, Any]]
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "infra.channel_layer.BatchingRedisChannelLayer",  # + group_send_many
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": CHANNEL_LAYER_SOCKET_TIMEOUT,
                        "socket_connect_timeout": 5,
                    }
                ],
                "prefix": "gin",
                # channels-redis counts a channel's capacity (default 100) on its Redis key, and every
                # socket of one Daphne process shares one key ("specific.<process>!"): past 100 queued
                # messages for the whole process, a group send silently dropped the next ones (issue 9:
                # 500 matches lost 211 states in 40 s; at 50 matches, saturated, about one a run). Each
                # socket's own buffer in the process keeps the default 100.
                "channel_capacity": {"specific.*": CHANNEL_LAYER_PROCESS_CAPACITY},
            },
        }
    }
else:
    # channels' in-memory layer without its deepcopy and per-message sweep (infra.channel_layer)
    CHANNEL_LAYERS = {"default": {"BACKEND": "infra.channel_layer.PackingInMemoryChannelLayer"}}
