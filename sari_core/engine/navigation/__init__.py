"""Navigation and reads: what a file or a definition holds, and where a name is used.

``read`` modes (:mod:`.reading`), a file's or folder's outline (:mod:`.outline`), and
``search kind=references|callers|implementations`` (:mod:`.navigation`, narrowed by
:mod:`.narrowing`).
"""
