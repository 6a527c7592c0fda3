"""Index and storage: the SQLite index of the workspace, built, kept fresh and read.

Its database and schema (:mod:`.schema`, :mod:`.store`, :mod:`.stored_texts`), a file's
references packed in one value (:mod:`.references`), the trigram query of a literal
(:mod:`.trigrams`); the build
(:mod:`.indexer`, :mod:`.build_settings`, :mod:`.build_priority`, :mod:`.progress`);
definitions from tree-sitter, parsed in worker processes (:mod:`.symbols`,
:mod:`.grammars`, :mod:`.symbol_jobs`, :mod:`.symbol_worker`), and a file's definitions
as a tree (:mod:`.scope_tree`); the word index (:mod:`.word_index`, :mod:`.word_chunks`,
:mod:`.licence_headers`); names matched the way people type them (:mod:`.names`);
reference counts (:mod:`.reference_counts`); and values read from the index, kept until
it changes (:mod:`.index_memo`).

Nothing is imported here, so a symbol worker process loads only what it uses.
"""
