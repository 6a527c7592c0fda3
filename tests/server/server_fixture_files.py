"""The in-memory workspace the in-process server tests run against."""

FILES = {
    "pkg/app.py": "import os\n\n\ndef handler(event):\n    return os.getcwd()\n",
    "pkg/util.py": "def helper():\n    return 42\n",
    "boom.py": "print('boom')\n",
    "README.md": "# demo\n",
}
