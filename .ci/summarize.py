"""Print each tox env's pytest closing line and the totals, from tox's --result-json.

An env tox skipped (its interpreter is missing: ``skip_missing_interpreters``) is named with
the interpreter it wanted and why it could not be had; tox itself prints only ``SKIP``.
"""

from __future__ import annotations

import json
import re
import sys

COUNT = re.compile(r"(\d+) (passed|failed|skipped|error|errors|deselected)")


def main(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        envs = json.load(handle)["testenvs"]
    totals = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    skipped_envs = []
    for name in sorted(envs):
        reason = skip_reason(envs[name])
        if reason is not None:
            skipped_envs.append(name)
            print(f"{name}: skipped: {reason}")
        for command in envs[name].get("test", []):
            lines = [line for line in command.get("output", "").splitlines() if line.strip()]
            closing = next((line for line in reversed(lines) if COUNT.search(line)), None)
            if closing is None:
                continue
            print(f"{name}: {closing.strip('= ')}")
            for number, word in COUNT.findall(closing):
                key = "errors" if word.startswith("error") else word
                if key in totals:
                    totals[key] += int(number)
    failed = totals["failed"] + totals["errors"]
    print(f"ci: {totals['passed']} passed, {failed} failed, {totals['skipped']} skipped")
    if skipped_envs:
        print(f"ci: {len(skipped_envs)} env(s) skipped for a missing interpreter: "
              f"{', '.join(skipped_envs)}")
    return 0


def skip_reason(env: dict) -> str | None:
    """Why tox skipped ``env`` (the interpreter it wanted, and the failure finding it), or
    None for an env that ran."""
    if not (env.get("result") or {}).get("skipped"):
        return None
    version = (env.get("python") or {}).get("version_info") or []
    wanted = ("Python " + ".".join(str(part) for part in version[:2])) if len(version) >= 2 \
        else "its Python"
    errors = [line.strip() for step in env.get("setup", []) if step.get("retcode")
              for line in (step.get("err") or "").splitlines() if line.strip()]
    cause = f" ({errors[0]})" if errors else ""
    return f"{wanted} interpreter not found{cause}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
