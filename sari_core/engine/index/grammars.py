"""The tree-sitter grammars behind symbol extraction, and the tags queries they run.

Most grammar wheels ship ``queries/tags.scm``: captures named ``@definition.<kind>`` /
``@reference.<kind>`` around an ``@name``. TypeScript's file only adds the
TypeScript-specific patterns, so it is combined with JavaScript's (as the tree-sitter
CLI does). Wheels that ship no tags file (C#, Kotlin, Bash) or one that misses
references (Swift, PHP's unqualified calls, Python's base classes and bare
decorators, which apply a function as a call does) get the patterns written here, in the same
capture convention.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Grammar:
    """Where a language's parser and tags come from."""

    module: str  # the grammar wheel's import name
    function: str  # the function of that module returning the language pointer
    tag_modules: tuple[str, ...] = ()  # wheels whose queries/tags.scm are combined
    own_tags: str = ""  # patterns added to (or standing in for) the shipped ones


CSHARP_TAGS = """
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(namespace_declaration name: (identifier) @name) @definition.module
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression
  function: (member_access_expression name: (identifier) @name)) @reference.call
(object_creation_expression type: (identifier) @name) @reference.class
(base_list (identifier) @name) @reference.implementation
"""

KOTLIN_TAGS = """
(class_declaration (identifier) @name) @definition.class
(object_declaration (identifier) @name) @definition.class
(function_declaration (identifier) @name) @definition.function
(call_expression (identifier) @name) @reference.call
(call_expression (navigation_expression (identifier) @name .)) @reference.call
(delegation_specifier (user_type (identifier) @name)) @reference.implementation
"""

BASH_TAGS = """
(function_definition name: (word) @name) @definition.function
(command name: (command_name (word) @name)) @reference.call
"""

SWIFT_REFERENCES = """
(call_expression (simple_identifier) @name) @reference.call
(call_expression
  (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name)))
  @reference.call
(inheritance_specifier (user_type (type_identifier) @name)) @reference.implementation
"""

PYTHON_EXTRAS = """
(decorator (identifier) @name) @reference.call
(decorator (attribute attribute: (identifier) @name)) @reference.call
(class_definition superclasses: (argument_list (identifier) @name)) @reference.implementation
(class_definition
  superclasses: (argument_list (attribute attribute: (identifier) @name)))
  @reference.implementation
(class_definition
  superclasses: (argument_list (subscript value: (identifier) @name)))
  @reference.implementation
(class_definition
  superclasses: (argument_list (subscript value: (attribute attribute: (identifier) @name))))
  @reference.implementation
"""

PHP_CALLS = """
(function_call_expression function: (name) @name) @reference.call
(object_creation_expression (name) @name) @reference.class
"""

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar("tree_sitter_python", "language", ("tree_sitter_python",),
                      own_tags=PYTHON_EXTRAS),
    "javascript": Grammar("tree_sitter_javascript", "language", ("tree_sitter_javascript",)),
    "typescript": Grammar("tree_sitter_typescript", "language_typescript",
                          ("tree_sitter_typescript", "tree_sitter_javascript")),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx",
                   ("tree_sitter_typescript", "tree_sitter_javascript")),
    "go": Grammar("tree_sitter_go", "language", ("tree_sitter_go",)),
    "rust": Grammar("tree_sitter_rust", "language", ("tree_sitter_rust",)),
    "java": Grammar("tree_sitter_java", "language", ("tree_sitter_java",)),
    "c": Grammar("tree_sitter_c", "language", ("tree_sitter_c",)),
    "cpp": Grammar("tree_sitter_cpp", "language", ("tree_sitter_cpp",)),
    "ruby": Grammar("tree_sitter_ruby", "language", ("tree_sitter_ruby",)),
    "php": Grammar("tree_sitter_php", "language_php", ("tree_sitter_php",),
                   own_tags=PHP_CALLS),
    "csharp": Grammar("tree_sitter_c_sharp", "language", own_tags=CSHARP_TAGS),
    "kotlin": Grammar("tree_sitter_kotlin", "language", own_tags=KOTLIN_TAGS),
    "swift": Grammar("tree_sitter_swift", "language", ("tree_sitter_swift",),
                     own_tags=SWIFT_REFERENCES),
    "scala": Grammar("tree_sitter_scala", "language", ("tree_sitter_scala",)),
    "lua": Grammar("tree_sitter_lua", "language", ("tree_sitter_lua",)),
    "shell": Grammar("tree_sitter_bash", "language", own_tags=BASH_TAGS),
}
