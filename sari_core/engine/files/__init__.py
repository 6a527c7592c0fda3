"""Files and paths: the workspace's files on disk, as every other room reaches them.

Roots and path safety (:mod:`.paths`, :mod:`.fdwalk`), which files belong to the
workspace (:mod:`.ignore`, :mod:`.exclusions`, :mod:`.fileset`), and a file's bytes read
safely as text, whole or a range of lines (:mod:`.textfile`, :mod:`.decoding`,
:mod:`.streaming`).
"""
