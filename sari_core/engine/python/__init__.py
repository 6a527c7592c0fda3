"""Python types: what Python source, read through the index, says about a name.

Definitions read out of the index: their trees (:mod:`.scopes`) and their text
(:mod:`.definitions`); Python's spelling of types and names
(:mod:`.python_text`, :mod:`.code_text`, :mod:`.with_statements`, :mod:`.use_text`),
decorators (:mod:`.decorators`, :mod:`.decorated`), where a name comes from
(:mod:`.import_origins`, :mod:`.type_aliases`), which classes extend which
(:mod:`.subclasses`), the class of the thing before ``.name`` (:mod:`.receiver_types`,
:mod:`.element_types`, :mod:`.overloads`, :mod:`.isinstance_checks`), and the definition
a navigation query names (:mod:`.symbol_target`).
"""
