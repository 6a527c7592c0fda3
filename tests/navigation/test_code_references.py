"""A comment or a string naming a symbol is no reference of it; code using it is.

Python's strings are judged by its own rules (``__all__``, quoted annotations); a docstring
sitting alone is still no use.
"""

from __future__ import annotations

from pathlib import Path

from sari_core.engine import Workspace
from sari_core.models import SearchCall

GO = """package cobra

// execute runs the command; execute is called once per invocation.
func execute(args []string) error {
	/* we execute nothing here */
	msg := "execute failed"
	_ = msg
	return nil
}

func Run() error { return execute(nil) }
"""

JAVASCRIPT = """'use strict';
// EVENT_RUN_END is emitted after the last suite
const constants = { EVENT_RUN_END: 'end' };
function report(runner) {
  runner.on(constants.EVENT_RUN_END, () => log(`done: ${constants.EVENT_RUN_END}`));
  log('EVENT_RUN_END');
}
"""

PYTHON = '''def render(value):
    """render the value: render is pure."""
    # render again later
    return value


print(render(1), f"{render(2)}")


def paint():
    """Paint it.

    render is called by the caller, not here
    """
    return None
'''

TYPESCRIPT = """// loadConfig reads the file; loadConfig is cached
/**
 * Call loadConfig once.
 */
export function loadConfig(path: string): string {
  const hint = "loadConfig failed";
  const tpl = `loadConfig ${path}`;
  type Name = 'loadConfig';
  /* loadConfig */ return hint + tpl;
}

const raw = `multi
loadConfig line
`;
export const value = loadConfig("x");
"""

# A raw string and a block comment over several lines: no line of either is a use.
GO_MULTILINE = """package cobra

var usage = `start
runs it`

/*
start is
documented here
*/
func start() error { return nil }

func Main() error { return start() }
"""

JAVASCRIPT_MULTILINE = """/*
 * startServer is
 * started here
 */
function startServer() {}
const s = `a
startServer b`;
startServer();
"""

RUST = """/* The parser
   calls tokenize once per line
*/
fn tokenize() {}

fn parse() { tokenize(); }
"""


def _lines(workspace: Workspace, query: str, glob: str) -> list[int]:
    result = workspace.search(SearchCall(query=query, kind="references", path_glob=glob))
    return [match.line for match in result.matches]


def test_comments_and_strings_are_not_references(tmp_path: Path) -> None:
    root = tmp_path / "src"
    root.mkdir()
    (root / "command.go").write_text(GO, encoding="utf-8")
    (root / "runner.js").write_text(JAVASCRIPT, encoding="utf-8")
    (root / "render.py").write_text(PYTHON, encoding="utf-8")
    (root / "parse.rs").write_text(RUST, encoding="utf-8")
    (root / "config.ts").write_text(TYPESCRIPT, encoding="utf-8")
    (root / "main.go").write_text(GO_MULTILINE, encoding="utf-8")
    (root / "server.js").write_text(JAVASCRIPT_MULTILINE, encoding="utf-8")
    with Workspace([root], index_path=tmp_path / "index.sqlite") as workspace:
        workspace.ensure_index(progress=False)
        assert _lines(workspace, "execute", "*.go") == [4, 11]
        assert _lines(workspace, "EVENT_RUN_END", "*.js") == [3, 5]
        assert _lines(workspace, "render", "*.py") == [1, 7]
        assert _lines(workspace, "tokenize", "*.rs") == [4, 6]
        assert _lines(workspace, "loadConfig", "*.ts") == [5, 15]
        assert _lines(workspace, "start", "main.go") == [10, 12]
        assert _lines(workspace, "startServer", "server.js") == [5, 8]
