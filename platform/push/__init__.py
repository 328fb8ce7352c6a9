"""Every live update of the site, in one place (Zulip's ``send_event_on_commit``, lila's ``Bus``).

- :mod:`push.groups`: the channel-layer group names, each built once.
- :mod:`push.schemas`: the JSON Schema of every message type sent on a group (framework-free).
- :mod:`push.send`: the after-commit send (batched, one timeout, on the right event loop) and its failure
  signal.

A write calls ``push.send.send_on_commit([(group, message), ...])``; the consumers that hold the
sockets turn each message into their frames. docs/protocol.md lists the frames; docs/scaling.md the
capacity arithmetic.
"""
