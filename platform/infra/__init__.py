"""Infrastructure every app may use: the channel layers (``infra.channel_layer``), the process-wide Redis
connection pool (``infra.redis_pool``), the read-replica router (``infra.db_router``) and the fault runs'
test hook (``infra.fault_points``). The bottom layer of the house (docs/architecture.md): it imports no
app, and settings name its classes by string (``CHANNEL_LAYERS``, ``CACHES``, ``DATABASE_ROUTERS``).
"""
