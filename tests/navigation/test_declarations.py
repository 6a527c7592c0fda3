"""Every declaration an outline or a definition search is asked for is a definition.

Type aliases, constants and variables of a file's top level, enums and their members,
fields, constructors, interface members and the keys of a module's object literals; locals
inside a function body are not.
"""

from __future__ import annotations

import pytest

from sari_core.engine.index.symbols import extract

TYPESCRIPT = b"""export type Shape = string | number;
export const emailRegex = /^[a-z]+@[a-z]+$/;
export const makeThing = () => 1;
export interface Options { strict: boolean; run(): void }
export enum Color { Red, Green = 2 }
export class Schema { private cached = 1; constructor(a: number) {} parse() {} }
export const $ZodDiscriminatedUnion = $constructor("x");
declare const VERSION: string;
function helper() { const inner = 1; return inner; }
"""

GO = b"""package p

type Alias = string
type Command struct { Use string }
type Runner interface { Execute() error }

const (
	ShellCompDirectiveError = iota
	ShellCompDirectiveNoSpace
)

var (
	initializers []func()
	prefix, suffix string
)

func helper() { const inner = 1; var local = 2; _ = local }
"""

JAVASCRIPT = b"""'use strict';
exports.spec = ['./test'];
module.exports.reporter = 'spec';
var constants = utils.defineConstants({ EVENT_RUN_END: 'end', EVENT_RUN_BEGIN: 'start' });
class Runner { constructor(suite) { this.suite = suite; } run() {} }
const timeout = 2000;
const run = () => 1;
function helper() { const inner = 1; return inner; }
"""

RUST = b"""pub const MAX_DEPTH: u32 = 64;
static GLOBAL: i32 = 2;
pub type Result<T> = std::result::Result<T, Error>;
pub struct Parser { pub depth: u32 }
pub enum Token { Open, Close(u32) }
pub trait Visit { const NAME: &'static str; type Output; fn visit(&self); }
fn helper() { let inner = 1; }
"""

JAVA = b"""package p;
public class Cart {
  public static final int MAX = 10;
  private String owner;
  public Cart(String owner) { this.owner = owner; }
  enum State { OPEN, CLOSED }
  record Line(String sku, int count) {}
  @interface Audited {}
  void helper() { int inner = 1; }
}
"""

CASES = {
    "typescript": (TYPESCRIPT, {
        ("Shape", "type"), ("emailRegex", "constant"), ("makeThing", "function"),
        ("Options", "interface"), ("strict", "property"), ("run", "method"),
        ("Color", "enum"), ("Red", "constant"), ("Green", "constant"),
        ("Schema", "class"), ("cached", "field"), ("constructor", "method"),
        ("parse", "method"), ("$ZodDiscriminatedUnion", "constant"), ("VERSION", "constant"),
        ("helper", "function")}),
    "go": (GO, {
        ("Alias", "type"), ("Command", "type"), ("Use", "field"), ("Runner", "type"),
        ("Execute", "method"), ("ShellCompDirectiveError", "constant"),
        ("ShellCompDirectiveNoSpace", "constant"), ("initializers", "variable"),
        ("prefix", "variable"), ("suffix", "variable"), ("helper", "function")}),
    "javascript": (JAVASCRIPT, {
        ("spec", "variable"), ("reporter", "variable"), ("constants", "variable"),
        ("EVENT_RUN_END", "property"), ("EVENT_RUN_BEGIN", "property"), ("Runner", "class"),
        ("constructor", "method"), ("run", "method"), ("timeout", "constant"),
        ("run", "function"), ("helper", "function")}),
    "rust": (RUST, {
        ("MAX_DEPTH", "constant"), ("GLOBAL", "constant"), ("Result", "class"),
        ("Parser", "class"), ("depth", "field"), ("Token", "class"), ("Open", "constant"),
        ("Close", "constant"), ("Visit", "interface"), ("NAME", "constant"),
        ("Output", "type"), ("visit", "method"), ("helper", "function")}),
    "java": (JAVA, {
        ("Cart", "class"), ("MAX", "field"), ("owner", "field"), ("Cart", "method"),
        ("State", "enum"), ("OPEN", "constant"), ("CLOSED", "constant"), ("Line", "class"),
        ("Audited", "interface"), ("helper", "method")}),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_every_declaration_is_a_definition(language: str) -> None:
    source, expected = CASES[language]
    found = {(name, kind) for name, kind, is_def, _line, _end in extract(language, source)
             if is_def}
    assert found == expected


def test_a_constant_names_the_line_it_is_declared_on() -> None:
    rows = {name: (line, end) for name, _kind, is_def, line, end in extract("go", GO) if is_def}
    assert rows["ShellCompDirectiveNoSpace"] == (9, 9)
    assert rows["suffix"] == (14, 14)


def test_embedded_fields_impl_blocks_and_quoted_keys_are_definitions() -> None:
    go = b"package p\n\ntype ListNode struct {\n\tNodeType\n\t*Tree\n\tNodes []Node\n}\n"
    rust = b"struct Span;\nimpl Span { fn len(&self) -> usize { 0 } }\n"
    javascript = b"const OPTIONS = { 'combine-arrays': true, strict: false };\n"
    assert {(n, k) for n, k, d, _, _ in extract("go", go) if d} == {
        ("ListNode", "type"), ("NodeType", "field"), ("Tree", "field"), ("Nodes", "field")}
    assert {(n, k, line) for n, k, d, line, _ in extract("rust", rust) if d} == {
        ("Span", "class", 1), ("Span", "impl", 2), ("len", "method", 2)}
    assert {(n, k) for n, k, d, _, _ in extract("javascript", javascript) if d} == {
        ("OPTIONS", "constant"), ("combine-arrays", "property"), ("strict", "property")}


def test_a_name_rebound_from_what_defines_it_is_no_definition() -> None:
    source = (b"var Runner = require('./runner');\n"
              b"var EVENT_RUN_END = Runner.constants.EVENT_RUN_END;\n"
              b"var end = Runner.constants.EVENT_RUN_END;\n")
    assert {n for n, _k, d, _l, _e in extract("javascript", source) if d} == {"Runner", "end"}


def test_declarations_sharing_a_line_are_siblings_in_the_outline() -> None:
    from sari_core.engine.index.scope_tree import build_tree, outline_lines

    go = b"package p\n\nvar prefix, suffix string\n\nvar table = map[string]int{}\n"
    typescript = (b"export interface Options { strict: boolean; run(): void }\n"
                  b"export const modes = { fast: 1, slow: 2 };\n")
    def outline(language: str, source: bytes) -> list[str]:
        rows = [(n, k, line, end) for n, k, d, line, end in extract(language, source) if d]
        return outline_lines(build_tree(rows), 0, 99)
    assert outline("go", go) == ["variable prefix 3", "variable suffix 3", "variable table 5"]
    assert outline("typescript", typescript) == [
        "interface Options 1", "  property strict 1", "  method run 1",
        "constant modes 2", "  property fast 2", "  property slow 2"]
