"""Licence and copyright headers stay out of the word index: a concept query whose words
only a header holds does not rank the file for it; literal search still finds the header."""

from __future__ import annotations

from indexed_files import module_workspace

from sari_core.engine import Workspace
from sari_core.engine.index.licence_headers import licence_lines
from sari_core.engine.search.word_search import search_words
from sari_core.models import SearchCall

MIT = """# Copyright (c) 2021 The Frobnicator Authors
#
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY.
"""
APACHE = """/*
 * Copyright 2019 The Frobnicator Authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS.
 */
"""
SPDX = "// SPDX-License-Identifier: BSD-3-Clause\n// Copyright 2020 The Frobnicator Authors\n"

FILES = {
    "frob/merge.py": MIT + '\n"""Merging two frobs."""\n\n\ndef merge(left, right):\n'
                     '    return left + right\n',
    "frob/table.js": APACHE + "'use strict';\n\nfunction rowCount(table) {\n"
                     "  return table.rows.length;\n}\n",
    "frob/split.go": SPDX + "\npackage frob\n\nfunc Split(text string) []string {\n"
                     "\treturn nil\n}\n",
    # Where the workspace's code really is about the words the headers use.
    "frob/sql.py": ('def where_clause(conditions):\n'
                    '    """The WHERE clause of a query: each condition, joined by AND."""\n'
                    '    return " AND ".join(conditions)\n\n\n'
                    'def grant_permission(user, table):\n'
                    '    """Grant a user permission on a table (free of charge)."""\n'
                    '    return f"GRANT SELECT ON {table} TO {user}"\n'),
}

workspace = module_workspace(FILES)


def ranked_files(workspace: Workspace, query: str) -> list[str]:
    return list(dict.fromkeys(hit.path for hit in search_words(workspace.store, query, 20)[0]))


def test_a_licence_header_does_not_rank_its_file_for_words_only_it_holds(
        workspace: Workspace) -> None:
    # "clause" is in the SPDX line, "warranty" and "merchantability" in the MIT text,
    # "apache" and "compliance" in the Apache header: no header ranks its file.
    assert ranked_files(workspace, "BSD 3 clause") == ["frob/sql.py"]
    assert ranked_files(workspace, "warranty of merchantability") == []
    assert ranked_files(workspace, "compliance with the apache license") == []
    assert ranked_files(workspace, "permission granted free of charge") == ["frob/sql.py"]


def test_the_file_s_own_words_after_the_header_still_rank_it(workspace: Workspace) -> None:
    assert ranked_files(workspace, "merging frobs")[0] == "frob/merge.py"
    assert ranked_files(workspace, "row count of a table")[0] == "frob/table.js"


def test_literal_search_still_finds_the_header(workspace: Workspace) -> None:
    result = workspace.search(SearchCall(query="Permission is hereby granted", literal=True))
    assert [(match.path, match.line) for match in result.matches] == [("frob/merge.py", 3)]
    result = workspace.search(SearchCall(query="SPDX-License-Identifier", literal=True))
    assert [match.path for match in result.matches] == ["frob/split.go"]


def test_the_paragraphs_up_to_the_last_licence_one_are_the_header() -> None:
    text = ("#!/usr/bin/env python\n# Frobnicator\n# https://frob.example/\n#\n"
            "# Copyright 2020 Frob Authors\n# License: BSD (see LICENSE for details).\n\n"
            "# This module splits frobs at their seams.\nimport os\n")
    assert licence_lines(text) == [2, 3, 5, 6]


def test_a_module_docstring_keeps_what_it_says_and_loses_its_licence_lines() -> None:
    text = ('"""\n    frob.dates\n\n    Locale dependent formatting of dates.\n\n'
            '    :copyright: (c) 2013 by the Frob Team.\n    :license: BSD, see LICENSE.\n"""\n')
    assert licence_lines(text) == [6, 7]
    only_licence = '"""Copyright (c) 2020 Frob Authors. All rights reserved."""\nimport os\n'
    assert licence_lines(only_licence) == [1]


def test_the_header_is_found_in_each_language_s_comments() -> None:
    php = ("<?php\n/**\n * Copyright (c) 2020 Frob\n *\n * MIT License\n */\n\n"
           "namespace Frob;\n")
    assert licence_lines(php) == [3, 5]
    lua = "--[[\n  Copyright (c) 2020 Frob\n  Licensed under the MIT licence.\n]]\nlocal x = 1\n"
    assert licence_lines(lua) == [2, 3]
    sql = "-- SPDX-License-Identifier: Apache-2.0\nSELECT 1;\n"
    assert licence_lines(sql) == [1]
    html = "<!--\n  Copyright 2021 Frob. All rights reserved.\n-->\n<html></html>\n"
    assert licence_lines(html) == [2]


def test_comments_and_code_that_are_no_licence_stay() -> None:
    assert licence_lines("# Frobnicate the input.\n# Copies the rows.\nimport os\n") == []
    assert licence_lines('#include <stdio.h>\n/* Copyright (c) 2020 Frob */\n') == []
    assert licence_lines("import os\n# Copyright (c) 2020 Frob Authors\n") == []
    assert licence_lines('x = 1\n"""Copyright (c) 2020 Frob."""\n') == []
    assert licence_lines("/* Copyright (c) 2020 Frob */ int x;\n") == []
