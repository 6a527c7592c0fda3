"""The figures and targets ``bench/agent_cost.py`` prints from one run's data."""

from __future__ import annotations

from typing import Any

from agent_cost_agents import MCP_RESULT_CHARS

ARMS = ("whole-file", "careful", "core", "policies", "whole-file + hooks", "careful + hooks")
SARI_ARMS = ("core", "policies")
# Each native agent with the hooks, against the same agent without them.
HOOKED = {"whole-file + hooks": ("whole-file", 0.75), "careful + hooks": ("careful", 0.92)}
HOOKED_SESSION_OVER = 1.03
# Targets, default policies, Sari's tools on top of the client's.
CACHED_VS_WHOLE_FILE = 0.65
TURNS_VS_CAREFUL = 0.92
CACHED_VS_CAREFUL = 0.88
SESSION_OVER_CAREFUL = 1.05


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


def dearer_sessions(data: dict[str, Any], arm: str, than: str, margin: float) -> list[str]:
    """Sessions where ``arm`` costs more than ``margin`` times ``than``, cached or uncached."""
    return [row["session"] for row in data["sessions"]
            if row[arm]["cached"] > margin * row[than]["cached"]
            or row[arm]["uncached"] > margin * row[than]["uncached"]]


def targets(data: dict[str, Any]) -> list[tuple[str, bool, str]]:
    t = data["total"]
    whole, careful, policies = t["whole-file"], t["careful"], t["policies"]
    cached_whole = _ratio(policies["cached"], whole["cached"])
    turns = _ratio(policies["turns"], careful["turns"])
    cached_careful = _ratio(policies["cached"], careful["cached"])
    dearer = dearer_sessions(data, "policies", "careful", SESSION_OVER_CAREFUL)
    short = [f"{arm} {row['session']}" for row in data["sessions"] for arm in ARMS
             if row[arm]["delivered"] < row[arm]["needed"]]
    hooked = []
    for arm, (plain, target) in HOOKED.items():
        ratio = _ratio(t[arm]["cached"], t[plain]["cached"])
        hooked.append((f"{arm} cached cost <= {target}x {plain}'s", ratio <= target,
                       f"{ratio:.3f}x"))
        dearer_hooked = [row["session"] for row in data["sessions"]
                         if row[arm]["cached"] > HOOKED_SESSION_OVER * row[plain]["cached"]]
        hooked.append((f"no {arm} session dearer (cached) than {plain}'s by more than "
                       f"{HOOKED_SESSION_OVER - 1:.0%}", not dearer_hooked,
                       f"{len(dearer_hooked)} dearer"
                       + (f": {', '.join(dearer_hooked)}" if dearer_hooked else "")))
    return [*hooked,
        (f"policies cached cost <= {CACHED_VS_WHOLE_FILE}x the whole-file agent's",
         cached_whole <= CACHED_VS_WHOLE_FILE, f"{cached_whole:.3f}x"),
        (f"policies turns <= {TURNS_VS_CAREFUL}x the careful agent's", turns <= TURNS_VS_CAREFUL,
         f"{policies['turns']} vs {careful['turns']} = {turns:.3f}x"),
        (f"policies cached cost <= {CACHED_VS_CAREFUL}x the careful agent's",
         cached_careful <= CACHED_VS_CAREFUL, f"{cached_careful:.3f}x"),
        ("no policies session dearer than the careful agent's by more than "
         f"{SESSION_OVER_CAREFUL - 1:.0%}", not dearer,
         f"{len(dearer)} dearer" + (f": {', '.join(dearer)}" if dearer else "")),
        ("every needed line delivered, every arm", not short,
         f"{sum(t[arm]['delivered'] for arm in ARMS)}/{sum(t[arm]['needed'] for arm in ARMS)}"
         + (f"; short: {', '.join(short)}" if short else "")),
    ]


def _short(arm: str) -> str:
    return arm.replace(" + hooks", "+h")[:10]


def print_report(data: dict[str, Any]) -> None:
    d = data["definitions"]
    print(f"python {data.get('python', '?')}; definitions claude-code sends its model: core "
          f"{d['core']} tokens, default policies {d['policies']} tokens, every plugin installed "
          f"{d['every_plugin']} tokens (native tools: in the 20,000 base); tools/list with every "
          f"plugin installed: {d['listed_every_plugin']} tokens (to a client given output "
          f"schemas: {d['every_client']})")
    head = f"{'session':<28}" + "".join(f"{_short(arm) + ' tok':>14}{'turns':>6}{'cac k':>7}"
                                         for arm in ARMS) + f"{'pol/car':>9}"
    print(head)
    rows = [*data["sessions"], {"session": "total", **data["total"]}]
    for row in rows:
        cells = "".join(f"{row[arm]['tokens']:>14}{row[arm]['turns']:>6}"
                        f"{row[arm]['cached'] / 1000:>7.0f}" for arm in ARMS)
        ratio = _ratio(row["policies"]["cached"], row["careful"]["cached"])
        print(f"{row['session']:<28}{cells}{ratio:>8.3f}x")
    t = data["total"]
    for arm in ARMS:
        a = t[arm]
        print(f"{arm:<18} tokens {a['tokens']:>7}  turns {a['turns']:>4}  uncached "
              f"{a['uncached']:>11,.0f}  cached {a['cached']:>11,.0f}  vs whole-file "
              f"{_ratio(a['cached'], t['whole-file']['cached']):.3f}x cached / "
              f"{_ratio(a['uncached'], t['whole-file']['uncached']):.3f}x uncached, vs careful "
              f"{_ratio(a['cached'], t['careful']['cached']):.3f}x / "
              f"{_ratio(a['uncached'], t['careful']['uncached']):.3f}x, turns "
              f"{_ratio(a['turns'], t['careful']['turns']):.3f}x  skipped {a['skipped']}  "
              f"unchanged {a['unchanged']}  refused {a['refused']}  needed "
              f"{a['delivered']}/{a['needed']}")
    for arm in SARI_ARMS:
        a = t[arm]
        print(f"{arm:<10} with these turns and every tool result free (the floor): cached "
              f"{_ratio(a['floor_cached'], t['careful']['cached']):.3f}x the careful agent's, "
              f"{_ratio(a['floor_cached'], t['whole-file']['cached']):.3f}x the whole-file "
              "agent's")
    fewest = t["fewest"]
    print(f"with the fewest calls any arm could make ({fewest['calls']}: the scripts' searches "
          "and their reads of what holds nothing needed) and every result free: cached "
          f"{_ratio(fewest['cached'], t['whole-file']['cached']):.3f}x the whole-file agent's, "
          f"{_ratio(fewest['cached'], t['careful']['cached']):.3f}x the careful agent's")
    credit = d["in_place_of"]
    for arm in SARI_ARMS:
        a = t[arm]
        print(f"in place of the client's Read, Edit and Write ({credit} tokens of their "
              f"definitions credited on every turn): {arm} cached "
              f"{_ratio(a['in_place_cached'], t['whole-file']['cached']):.3f}x whole-file, "
              f"{_ratio(a['in_place_cached'], t['careful']['cached']):.3f}x careful; uncached "
              f"{_ratio(a['in_place_uncached'], t['whole-file']['uncached']):.3f}x / "
              f"{_ratio(a['in_place_uncached'], t['careful']['uncached']):.3f}x")
    core_dearer = dearer_sessions(data, "core", "careful", 1.0)
    print(f"core dearer than the careful agent in {len(core_dearer)} sessions"
          + (f": {', '.join(core_dearer)}" if core_dearer else ""))
    over = {arm: t[arm]["oversized"] for arm in SARI_ARMS}
    print(f"Sari results over {MCP_RESULT_CHARS:,} characters (the client would not show them "
          f"whole): core {over['core']}, policies {over['policies']}")
    print(f"replayed in {data.get('seconds', 0):.0f} s; hooks design: "
          f"{data.get('hooks_design', 'as-built')}")
    for corpus in dict.fromkeys(row["corpus"] for row in data["sessions"]):
        rows = [row for row in data["sessions"] if row["corpus"] == corpus]
        ratios = [(arm, plain, _ratio(sum(r[arm]["cached"] for r in rows),
                                      sum(r[plain]["cached"] for r in rows)))
                  for arm, (plain, _) in HOOKED.items()]
        print(f"{corpus:<18} {len(rows)} sessions, cached: "
              + ", ".join(f"{arm} {ratio:.3f}x {plain}'s" for arm, plain, ratio in ratios))
    for name, met, figure in targets(data):
        print(f"{'PASS' if met else 'FAIL'}  {name}: {figure}")
