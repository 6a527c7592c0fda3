"""Index and storage: the SQLite index of the workspace, built, kept fresh and read.

Its database and schema (:mod:`.schema`, :mod:`.store`, :mod:`.stored_texts`), the build
(:mod:`.indexer`, :mod:`.build_settings`, :mod:`.build_priority`, :mod:`.progress`),
definitions from tree-sitter, in worker processes (:mod:`.symbols`, :mod:`.grammars`,
:mod:`.symbol_jobs`, :mod:`.symbol_worker`), the word index (:mod:`.word_index`,
:mod:`.word_chunks`, :mod:`.licence_headers`), and what is read from it: folded names,
reference counts, values kept until the index changes (:mod:`.names`,
:mod:`.reference_counts`, :mod:`.index_memo`).

Nothing is imported here, so a symbol worker process loads only what it uses.
"""
