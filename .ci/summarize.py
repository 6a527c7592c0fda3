"""Print each tox env's pytest closing line and the totals, from tox's --result-json."""

from __future__ import annotations

import json
import re
import sys

COUNT = re.compile(r"(\d+) (passed|failed|skipped|error|errors|deselected)")


def main(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        envs = json.load(handle)["testenvs"]
    totals = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    for name in sorted(envs):
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
