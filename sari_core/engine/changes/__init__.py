"""Changes: the workspace's files as they change.

Changes made outside Sari, noticed on disk (:mod:`.changes`); what git says changed
(:mod:`.gitdiff`); and ``edit``/``write``, planned then applied atomically
(:mod:`.mutations`).
"""
