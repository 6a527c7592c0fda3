"""Search and ranking: ``search`` answered from the index.

The searcher and the default search's routing by query kind (:mod:`.search`,
:mod:`.default_search`, :mod:`.query_kinds`); exact file sets for a literal or a regex
(:mod:`.text_match`, :mod:`.regex`, :mod:`.regex_plan`); symbol search
(:mod:`.symbol_search`); search by words and its vocabulary (:mod:`.word_search`,
:mod:`.query_words`, :mod:`.code_vocabulary`, :mod:`.glued_names`,
:mod:`.glued_vocabulary`, :mod:`.definition_heads`); ranking and the context shown with
hits (:mod:`.hit_ranking`, :mod:`.hit_context`); and the budget one call may spend
(:mod:`.work_budget`).
"""
