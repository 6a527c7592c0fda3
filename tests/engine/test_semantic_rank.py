"""The search by words with the ``semantic`` extra: among its best definitions, the one that
means what was asked comes first; the model loads from the installed wheel alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from indexed_files import indexed

from sari_core.arguments import parse_search
from sari_core.engine.search import semantic_rank

# Ten unrelated modules, so that a word of every file weighs little, and a cart whose
# items share more of the query's words than the function that sums its price does.
TOPICS = ["parse a date string", "render html template", "open a network socket",
          "hash a password", "read config file", "resize an image", "send an email",
          "compress bytes", "walk a directory tree", "format a number"]
FILES = {f"app/m{index}.py": (f"def {'_'.join(topic.split()[:2])}(value):\n"
                              f'    """{topic.capitalize()}."""\n'
                              f"    return value\n\n\ndef helper_{index}(value):\n"
                              f"    return value + {index}\n")
         for index, topic in enumerate(TOPICS)}
FILES["app/money.py"] = (
    "def cart_items(cart):\n"
    '    """The items of the cart, in the order they were added."""\n'
    "    return list(cart.items)\n\n\n"
    "def checkout_amount(cart):\n"
    '    """Add up what every product costs, with tax."""\n'
    "    total = sum(product.cost for product in cart.products)\n"
    "    return total * 1.2\n")


def test_the_definition_that_means_what_was_asked_comes_before_one_sharing_its_words(
        tmp_path: Path) -> None:
    # By words alone cart_items is first: its name holds "cart", its docstring "the cart".
    with indexed(tmp_path / "tree", FILES) as engine:
        found = engine.search(parse_search({"query": "sum the price of the cart"})).matches
    assert [match.symbol for match in found[:2]] == ["checkout_amount", "cart_items"]


def test_the_model_loads_from_the_wheel_with_no_network_and_no_cache_folder(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # a download would need the network (a proxy that refuses) or write a cache folder
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "HF_HUB_OFFLINE": "1", "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9"}
    done = subprocess.run(
        [sys.executable, "-c", "from sari_core.engine.search.semantic_rank import available;"
         " assert available()"], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert list(home.iterdir()) == []


# Two classes of one file with a method of one name, its words the same in both: the words
# tie, and the class the query's nouns mean is said by the method's qualified name alone.
NAMESAKES = {**FILES, "app/sounds.py": (
    "class Car:\n"
    "    def speak(self):\n"
    '        """Say the greeting out loud."""\n'
    "        return self.greeting\n\n\n"
    "class Dog:\n"
    "    def speak(self):\n"
    '        """Say the greeting out loud."""\n'
    "        return self.greeting\n")}


def _first_speaker(tmp_path: Path) -> str | None:
    with indexed(tmp_path / "tree", NAMESAKES) as engine:
        found = engine.search(parse_search({"query": "let the puppy say its greeting"})).matches
    return next(match.symbol for match in found if match.symbol.endswith(".speak"))


def test_the_method_whose_qualified_name_means_the_query_comes_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The text's meaning left out: the name's alone puts the dog's method before the car's.
    monkeypatch.setattr(semantic_rank, "SEMANTIC", 0.0)
    assert _first_speaker(tmp_path) == "Dog.speak"


def test_without_the_names_meaning_the_words_tie_and_the_first_written_comes_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic_rank, "SEMANTIC", 0.0)
    monkeypatch.setattr(semantic_rank, "NAME_MEANING", 0.0)
    assert _first_speaker(tmp_path) == "Car.speak"
