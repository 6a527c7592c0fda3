"""MkDocs hook: the repository's ``CHANGELOG.md`` as the site's ``changelog.md`` page.

The changelog lives at the repository root, where people look for it on a checkout; its
links are written from there (``docs/plugins/ripple.md``). The page is generated from it at
build time, links rewritten to the site's own paths, so there is one file and no copy to
drift. A missing changelog stops the build.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

CHANGELOG = "CHANGELOG.md"
PAGE = "changelog.md"
# A link from the repository root into the docs folder: ](docs/x.md) becomes ](x.md).
DOCS_LINK = re.compile(r"\]\(docs/")


def changelog_page(repo_root: Path) -> str:
    source = repo_root / CHANGELOG
    if not source.is_file():
        raise FileNotFoundError(f"{source} does not exist: the docs' changelog page is built from it")
    return DOCS_LINK.sub("](", source.read_text(encoding="utf-8"))


def on_files(files: Files, config: Any) -> Files:
    repo_root = Path(config["config_file_path"]).parent
    files.append(File.generated(config, PAGE, content=changelog_page(repo_root)))
    return files
