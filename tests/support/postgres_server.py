"""A throwaway PostgreSQL server for tests and benches: initdb into a temporary folder.

Uses the server binaries of the machine (Debian's ``postgresql`` package puts them in
/usr/lib/postgresql/<version>/bin; ``initdb`` on PATH works too). It listens on a free
port of 127.0.0.1 only, with a password (scram-sha-256) so that what a URL carries is
exercised. initdb refuses to run as root: as root, the server runs as ``nobody``.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

USER = "postgres"  # the superuser, named as Debian names it (docs' steps create role sari)
PASSWORD = "pg-secret-9Zq7"  # a throwaway server's; tests check it never shows
REQUIRED_ENV = "SARI_TEST_POSTGRES"


def bin_dir() -> Path | None:
    """Where initdb, pg_ctl and postgres are, or None."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    for folder in candidates:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    return None


def _version(folder: str) -> int:
    try:
        return int(Path(folder).parent.name.split(".")[0])
    except ValueError:
        return 0


def unavailable_reason() -> str | None:
    """Why no server can be started here, or None when one can."""
    if bin_dir() is None:
        return ("no PostgreSQL server binaries (initdb, pg_ctl): install Debian's postgresql "
                "package (apt-get install -y postgresql)")
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed: pip install -e 'plugins/sari-persistence[postgres]'"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root and runuser is missing (initdb refuses root)"
    return None


def required() -> bool:
    """The environment says these tests must run (a PostgreSQL CI env): fail, never skip."""
    return os.environ.get(REQUIRED_ENV, "").strip().lower() in ("1", "required", "true")


def _parent_for(as_nobody: bool) -> str | None:
    """A temporary folder the server's user can reach (the default one may be root's alone)."""
    if not as_nobody:
        return None
    for folder in (tempfile.gettempdir(), "/var/tmp", "/dev/shm"):
        if os.path.isdir(folder) and os.stat(folder).st_mode & 0o001:
            return folder
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """One server; ``url(db)`` is a password-bearing URL for that database."""

    def __init__(self, *, fsync: bool = False) -> None:
        folder = bin_dir()
        if folder is None:
            raise RuntimeError(unavailable_reason() or "no PostgreSQL")
        self.bin = folder
        self._as_nobody = os.geteuid() == 0
        self.base = Path(tempfile.mkdtemp(prefix="sari-pg-", dir=_parent_for(self._as_nobody)))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.port = free_port()
        self.fsync = fsync
        pwfile = self.base / "pw"
        pwfile.write_text(PASSWORD + "\n", encoding="utf-8")
        if self._as_nobody:
            os.chmod(self.base, 0o755)
            shutil.chown(self.base, "nobody", "nogroup")
            shutil.chown(pwfile, "nobody", "nogroup")
        self._run("initdb", "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}",
                  "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8",
                  "--no-sync", "--no-instructions")
        pwfile.unlink()
        self.start()

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / tool), *args]
        if self._as_nobody:
            command = ["runuser", "-u", "nobody", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check,
                              timeout=120, cwd=self.base)

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 "
                   f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=200")
        result = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options,
                           "-w", "-t", "60", "start", check=False)
        if result.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {result.stderr}\n{log[-2000:]}")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A fresh database; its URL."""
        import psycopg

        name = name or f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)
