"""MkDocs hooks that generate the parts of Sari's documentation that code already knows.

A page asks for a generated block with an HTML comment marker (invisible if a
page is read on a forge instead of the site):

- ``<!-- sari:cli-reference -->``: ``sari --help`` and every subcommand's help, from the
  argparse parser the ``sari`` command itself builds (core commands and plugin commands).
- ``<!-- sari:kernel-reason-codes -->``: the kernel's codes in registry order, with the
  UX metadata of ``reason_registry.json``.
- ``<!-- sari:plugin-reason-codes -->``: the codes every installed plugin registers.
- ``<!-- sari:installed-policies -->``: the installed policy plugins, their hooks,
  settings section and reason codes.
- ``<!-- sari:include PATH -->``: the file at PATH (relative to the repository root) as a
  code block, so a guide quotes the real, tested code rather than a copy that drifts.

``on_page_content`` turns the Sphinx cross-reference roles the docstrings use
(``:class:`~sari_core.kernel.verdicts.Verdict```), which mkdocstrings leaves as text, into links
to the API reference (or plain code when the target is not documented).

``on_config`` also lists every ``docs/plugins/*.md`` page under "Policies" in the nav,
so a new policy's page shows up without touching ``mkdocs.yml``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

POLICIES_SECTION = "Policies"
SPHINX_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):<code>(?P<tilde>~?)"
                         r"(?P<target>[\w.]+)</code>")
INCLUDE = re.compile(r"<!-- sari:include (?P<path>[^ ]+) -->")
LANGUAGES = {".py": "python", ".toml": "toml", ".ini": "ini", ".json": "json", ".md": "markdown"}
HELP_COLUMNS = "96"


@dataclass(frozen=True)
class InstalledPlugin:
    name: str
    distribution: str
    version: str
    hooks: tuple[str, ...]
    section: str | None
    codes: tuple[Any, ...]


def installed_plugins() -> list[InstalledPlugin]:
    """Every plugin of the ``sari`` entry-point group, whatever SARI_PLUGINS says."""
    from sari_core.kernel import hookspecs
    from sari_core.kernel.manager import SariPluginManager

    found = []
    for ep in sorted(entry_points(group="sari"), key=lambda e: e.name):
        try:
            obj = ep.load()
            plugin = obj() if isinstance(obj, type) else obj
        except Exception as exc:  # name the culprit: the traceback alone points into importlib
            raise RuntimeError(f"plugin {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        pm = SariPluginManager()
        pm.register(plugin, name=ep.name)
        hooks = tuple(h for h in pm.hooks_of(ep.name) if h in hookspecs.HOOK_NAMES)
        settings = getattr(plugin, "sari_register_settings", None)
        spec = settings() if settings else None
        register_codes = getattr(plugin, "sari_register_reason_codes", None)
        codes = tuple(register_codes() or ()) if register_codes else ()
        dist = ep.dist
        found.append(InstalledPlugin(
            name=ep.name, distribution=dist.metadata["Name"] if dist else "?",
            version=dist.version if dist else "?", hooks=hooks,
            section=spec.section if spec else None, codes=codes))
    return found


@contextmanager
def _fixed_columns() -> Iterator[None]:
    """argparse wraps help to the terminal width; fix it so the page is the same everywhere."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def render_cli_reference(page_dir: Path, docs_dir: Path) -> str:
    import argparse

    from sari_core.cli.main import build_parser, build_registry

    with _fixed_columns():
        registry = build_registry()
        parser = build_parser(registry)
        blocks = ["## `sari`", "", "```text", parser.format_help().rstrip(), "```", ""]
        for command in sorted(registry.commands(), key=lambda command: command.name):
            # Each command's own parser, as `sari COMMAND --help` builds it.
            sub = argparse.ArgumentParser(prog=f"{parser.prog} {command.name}",
                                          description=command.help)
            command.configure(sub)
            blocks += [f"## `sari {command.name}`", "", "```text", sub.format_help().rstrip(),
                       "```", ""]
    return "\n".join(blocks)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_kernel_reason_codes(page_dir: Path, docs_dir: Path) -> str:
    from sari_core.kernel.reasons import ReasonRegistry

    registry = ReasonRegistry.with_kernel_codes()
    rows = ["| code | severity | meaning | next call |", "|---|---|---|---|"]
    for code in registry.codes():
        spec = registry.get(code)
        template = f"`{json.dumps(spec.next_call_template)}`" if spec.next_call_template else "—"
        rows.append(f"| [`{code}`](#{code.lower()}) | {spec.severity} | "
                    f"{_cell(spec.description)} | {_cell(template)} |")
    return "\n".join(rows) + "\n"


def _plugin_link(plugin: InstalledPlugin, page_dir: Path, docs_dir: Path) -> str:
    page = docs_dir / "plugins" / f"{plugin.section or plugin.name}.md"
    if not page.exists():
        return f"`{plugin.name}`"
    return f"[`{plugin.name}`]({os.path.relpath(page, page_dir).replace(os.sep, '/')})"


def render_plugin_reason_codes(page_dir: Path, docs_dir: Path) -> str:
    rows = ["| code | plugin | severity | rank | meaning |", "|---|---|---|---|---|"]
    entries = [(spec, plugin) for plugin in installed_plugins() for spec in plugin.codes]
    for spec, plugin in sorted(entries, key=lambda item: (item[0].rank, item[0].code)):
        rows.append(f"| `{spec.code}` | {_plugin_link(plugin, page_dir, docs_dir)} | "
                    f"{spec.severity} | {spec.rank} | {_cell(spec.description)} |")
    if not entries:
        return "*No installed plugin registers reason codes.*\n"
    return "\n".join(rows) + "\n"


def render_installed_policies(page_dir: Path, docs_dir: Path) -> str:
    plugins = installed_plugins()
    if not plugins:
        return "*No policy plugin was installed when this site was built.*\n"
    rows = ["| plugin | distribution | settings | hooks | reason codes |", "|---|---|---|---|---|"]
    for plugin in plugins:
        section = f"`[tool.sari.{plugin.section}]`" if plugin.section else "—"
        hooks = ", ".join(f"`{hook}`" for hook in plugin.hooks)
        codes = ", ".join(f"`{spec.code}`" for spec in plugin.codes) or "—"
        rows.append(f"| {_plugin_link(plugin, page_dir, docs_dir)} | `{plugin.distribution}` "
                    f"{plugin.version} | {section} | {hooks} | {codes} |")
    return "\n".join(rows) + "\n"


GENERATORS: dict[str, Callable[[Path, Path], str]] = {
    "<!-- sari:cli-reference -->": render_cli_reference,
    "<!-- sari:kernel-reason-codes -->": render_kernel_reason_codes,
    "<!-- sari:plugin-reason-codes -->": render_plugin_reason_codes,
    "<!-- sari:installed-policies -->": render_installed_policies,
}


# --- MkDocs event handlers --------------------------------------------------------------


def on_config(config: Any) -> Any:
    docs_dir = Path(config["docs_dir"])
    pages = sorted(p.relative_to(docs_dir).as_posix() for p in (docs_dir / "plugins").glob("*.md"))
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and POLICIES_SECTION in entry:
            listed = entry[POLICIES_SECTION]
            known = {next(iter(item.values())) if isinstance(item, dict) else item
                     for item in listed}
            listed.extend(page for page in pages if page not in known)
    return config


def _include(match: re.Match[str], repo_root: Path) -> str:
    path = repo_root / match.group("path")
    if not path.is_file():
        # A missing file must fail the strict build, not render an empty block.
        raise FileNotFoundError(f"sari:include names {match.group('path')}, which does not exist")
    language = LANGUAGES.get(path.suffix, "text")
    return f"```{language}\n{path.read_text(encoding='utf-8').rstrip()}\n```"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs_dir = Path(config["docs_dir"])
    page_dir = (docs_dir / page.file.src_path).parent
    for marker, generate in GENERATORS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate(page_dir, docs_dir))
    repo_root = Path(config["config_file_path"]).parent
    return INCLUDE.sub(lambda match: _include(match, repo_root), markdown)


def _role_to_link(match: re.Match[str]) -> str:
    target = match.group("target")
    shown = target.rsplit(".", 1)[-1] if match.group("tilde") else target
    # autorefs resolves this after every page is rendered; "optional" keeps plain code
    # when nothing documents the target, instead of a warning.
    return f'<autoref identifier="{target}" optional><code>{shown}</code></autoref>'


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return SPHINX_ROLE.sub(_role_to_link, html)
