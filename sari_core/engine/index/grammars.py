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

# Declarations the shipped tags files leave out: type aliases, constants and variables of
# a file's top level, enums and their members, fields, constructors, interface members.
# Locals inside functions stay out: they are not what an outline or a definition search
# is asked for.
JAVASCRIPT_DECLARATIONS = """
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(export_statement
  declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(export_statement
  declaration: (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(method_definition
  name: (property_identifier) @name (#eq? @name "constructor")) @definition.method
(assignment_expression
  left: (member_expression object: (identifier) @exports property: (property_identifier) @name)
  (#eq? @exports "exports")) @definition.variable
(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @module property: (property_identifier) @exports)
    property: (property_identifier) @name)
  (#eq? @module "module") (#eq? @exports "exports")) @definition.variable
(program (_ (variable_declarator
  value: (object (pair key: [(property_identifier) @name (string (string_fragment) @name)])
                 @definition.property))))
(program (_ (variable_declarator
  value: (call_expression
    arguments: (arguments
      (object (pair key: [(property_identifier) @name (string (string_fragment) @name)])
              @definition.property))))))
(program (export_statement declaration: (_ (variable_declarator
  value: (object (pair key: [(property_identifier) @name (string (string_fragment) @name)])
                 @definition.property)))))
(program (expression_statement (assignment_expression
  right: (object (pair key: [(property_identifier) @name (string (string_fragment) @name)])
                 @definition.property))))
"""

JAVASCRIPT_FIELDS = """
(field_definition property: (property_identifier) @name) @definition.field
"""

TYPESCRIPT_DECLARATIONS = """
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.constant)
(enum_assignment name: (property_identifier) @name) @definition.constant
(interface_body (property_signature name: (property_identifier) @name) @definition.property)
(type_alias_declaration
  value: (object_type (property_signature name: (property_identifier) @name) @definition.property))
(public_field_definition name: (property_identifier) @name) @definition.field
(internal_module name: (identifier) @name) @definition.module
(internal_module body: (statement_block (export_statement
  declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))))
(ambient_declaration (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(ambient_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(export_statement declaration: (ambient_declaration
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
"""

GO_DECLARATIONS = """
(type_alias name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
(field_declaration name: (field_identifier) @name) @definition.field
(field_declaration !name type: [(type_identifier) @name
                                (pointer_type (type_identifier) @name)
                                (qualified_type name: (type_identifier) @name)
                                (generic_type type: (type_identifier) @name)]) @definition.field
(method_elem name: (field_identifier) @name) @definition.method
"""

RUST_DECLARATIONS = """
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(field_declaration name: (field_identifier) @name) @definition.field
(enum_variant name: (identifier) @name) @definition.constant
(function_signature_item name: (identifier) @name) @definition.method
(impl_item type: [(type_identifier) @name
                  (generic_type type: (type_identifier) @name)
                  (scoped_type_identifier name: (type_identifier) @name)]) @definition.impl
(associated_type name: (type_identifier) @name) @definition.type
"""

JAVA_DECLARATIONS = """
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_constant name: (identifier) @name) @definition.constant
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(annotation_type_element_declaration name: (identifier) @name) @definition.method
"""

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar("tree_sitter_python", "language", ("tree_sitter_python",),
                      own_tags=PYTHON_EXTRAS),
    "javascript": Grammar("tree_sitter_javascript", "language", ("tree_sitter_javascript",),
                          own_tags=JAVASCRIPT_DECLARATIONS + JAVASCRIPT_FIELDS),
    "typescript": Grammar("tree_sitter_typescript", "language_typescript",
                          ("tree_sitter_typescript", "tree_sitter_javascript"),
                          own_tags=JAVASCRIPT_DECLARATIONS + TYPESCRIPT_DECLARATIONS),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx",
                   ("tree_sitter_typescript", "tree_sitter_javascript"),
                   own_tags=JAVASCRIPT_DECLARATIONS + TYPESCRIPT_DECLARATIONS),
    "go": Grammar("tree_sitter_go", "language", ("tree_sitter_go",), own_tags=GO_DECLARATIONS),
    "rust": Grammar("tree_sitter_rust", "language", ("tree_sitter_rust",),
                    own_tags=RUST_DECLARATIONS),
    "java": Grammar("tree_sitter_java", "language", ("tree_sitter_java",),
                    own_tags=JAVA_DECLARATIONS),
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
